package rt

import "fmt"

// A kernel's attributes, occupancy and the parameter layout its driver
// reports: what a generated package's exported kernel handles
// (kernels.VecAddKernel) offer besides launches.

// KernelAttributes are what the driver reports about a kernel compiled for
// one device (cuKernelGetAttribute).
type KernelAttributes struct {
	// MaxThreadsPerBlock is the largest block the kernel can be launched
	// with: its __launch_bounds__, or what its registers allow.
	MaxThreadsPerBlock int
	// SharedSizeBytes is its static shared memory; ConstSizeBytes its
	// constant memory; LocalSizeBytes its local memory per thread (spills
	// and stack).
	SharedSizeBytes, ConstSizeBytes, LocalSizeBytes int
	// NumRegs is the registers each thread uses.
	NumRegs int
	// PTXVersion and BinaryVersion are the virtual and real architectures
	// it was compiled for, major*10+minor (90 for sm_90).
	PTXVersion, BinaryVersion int
	// MaxDynamicSharedSizeBytes is the most dynamic shared memory a launch
	// may ask for: 48 KiB minus the static size until raised with
	// SetMaxDynamicSharedMemory.
	MaxDynamicSharedSizeBytes int
	// PreferredSharedMemoryCarveout is the preferred share of L1 for shared
	// memory in percent, or -1 for no preference.
	PreferredSharedMemoryCarveout int
	// NonPortableClusterSizeAllowed reports whether launches may use
	// clusters larger than the portable 8 blocks.
	NonPortableClusterSizeAllowed bool
}

func kernelAttributer(d Driver, op string) (KernelAttributer, error) {
	return capability[KernelAttributer](d, op, "kernel attributes (rt.KernelAttributer)")
}

// Attribute reads one attribute of the kernel compiled for dev
// (cuKernelGetAttribute), loading the library in dev's driver if needed.
func (k *Kernel) Attribute(dev Device, a FuncAttr) (int, error) {
	if err := dev.check("rt.Kernel.Attribute"); err != nil {
		return 0, err
	}
	ka, err := kernelAttributer(dev.drv, "cuKernelGetAttribute")
	if err != nil {
		return 0, err
	}
	h, err := k.Handle(dev.drv)
	if err != nil {
		return 0, err
	}
	return ka.KernelAttribute(h, a, dev.ord)
}

// SetAttribute sets one attribute of the kernel on dev
// (cuKernelSetAttribute). Attributes are per device: set them on every
// device the kernel runs on.
func (k *Kernel) SetAttribute(dev Device, a FuncAttr, v int) error {
	if err := dev.check("rt.Kernel.SetAttribute"); err != nil {
		return err
	}
	ka, err := kernelAttributer(dev.drv, "cuKernelSetAttribute")
	if err != nil {
		return err
	}
	h, err := k.Handle(dev.drv)
	if err != nil {
		return err
	}
	return ka.SetKernelAttribute(h, a, v, dev.ord)
}

// Attributes reads every attribute of the kernel compiled for dev.
func (k *Kernel) Attributes(dev Device) (KernelAttributes, error) {
	var ka KernelAttributes
	var nonPortable int
	for _, f := range []struct {
		a FuncAttr
		p *int
	}{
		{FuncMaxThreadsPerBlock, &ka.MaxThreadsPerBlock},
		{FuncSharedSizeBytes, &ka.SharedSizeBytes},
		{FuncConstSizeBytes, &ka.ConstSizeBytes},
		{FuncLocalSizeBytes, &ka.LocalSizeBytes},
		{FuncNumRegs, &ka.NumRegs},
		{FuncPTXVersion, &ka.PTXVersion},
		{FuncBinaryVersion, &ka.BinaryVersion},
		{FuncMaxDynamicSharedSizeBytes, &ka.MaxDynamicSharedSizeBytes},
		{FuncPreferredSharedMemoryCarveout, &ka.PreferredSharedMemoryCarveout},
		{FuncNonPortableClusterSizeAllowed, &nonPortable},
	} {
		v, err := k.Attribute(dev, f.a)
		if err != nil {
			return ka, fmt.Errorf("rt: kernel %s: attribute %d: %w", k.Name(), f.a, err)
		}
		*f.p = v
	}
	ka.NonPortableClusterSizeAllowed = nonPortable != 0
	return ka, nil
}

// SetMaxDynamicSharedMemory lets launches of the kernel on dev ask for up to
// bytes of dynamic shared memory (FuncMaxDynamicSharedSizeBytes). A kernel
// needs it for more than 48 KiB (its static shared memory included), up to
// the device's AttrMaxSharedMemoryPerBlockOptin; without it such a launch
// fails with ErrInvalidValue.
func (k *Kernel) SetMaxDynamicSharedMemory(dev Device, bytes int) error {
	return k.SetAttribute(dev, FuncMaxDynamicSharedSizeBytes, bytes)
}

// SetPreferredCarveout sets the share of L1 the kernel prefers as shared
// memory on dev, in percent (0 to 100, -1 for no preference): a hint
// (FuncPreferredSharedMemoryCarveout).
func (k *Kernel) SetPreferredCarveout(dev Device, percent int) error {
	return k.SetAttribute(dev, FuncPreferredSharedMemoryCarveout, percent)
}

// AllowNonPortableClusterSize lets launches on dev use clusters of more
// than 8 blocks, where the device has them (16 on an H100)
// (FuncNonPortableClusterSizeAllowed).
func (k *Kernel) AllowNonPortableClusterSize(dev Device, allow bool) error {
	v := 0
	if allow {
		v = 1
	}
	return k.SetAttribute(dev, FuncNonPortableClusterSizeAllowed, v)
}

func occupancyCalculator(d Driver, op string) (OccupancyCalculator, error) {
	return capability[OccupancyCalculator](d, op, "occupancy queries (rt.OccupancyCalculator)")
}

// MaxActiveBlocksPerSM is how many blocks of block threads, each with
// dynSmem bytes of dynamic shared memory, fit on one multiprocessor of ctx's
// device at once (cuOccupancyMaxActiveBlocksPerMultiprocessor). Times the
// multiprocessor count, it is the largest grid that runs all at once (what
// a cooperative launch needs).
func (k *Kernel) MaxActiveBlocksPerSM(ctx *Context, block, dynSmem int) (int, error) {
	if block <= 0 || dynSmem < 0 {
		return 0, Errorf("cuOccupancyMaxActiveBlocksPerMultiprocessor", ErrInvalidValue, "block size %d, %d bytes of dynamic shared memory", block, dynSmem)
	}
	if err := ctx.check("rt.Kernel.MaxActiveBlocksPerSM"); err != nil {
		return 0, err
	}
	oc, err := occupancyCalculator(ctx.drv, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
	if err != nil {
		return 0, err
	}
	h, err := k.Handle(ctx.drv)
	if err != nil {
		return 0, err
	}
	return oc.OccupancyMaxActiveBlocks(ctx.h, h, block, uint64(dynSmem))
}

// SuggestBlockSize is the block size that gives the kernel the most
// resident threads on ctx's device with dynSmem bytes of dynamic shared
// memory per block, at most blockLimit threads (0: no limit), and minGrid,
// the grid that fills the device at that occupancy
// (cuOccupancyMaxPotentialBlockSize).
func (k *Kernel) SuggestBlockSize(ctx *Context, dynSmem, blockLimit int) (minGrid, block int, err error) {
	if err := ctx.check("rt.Kernel.SuggestBlockSize"); err != nil {
		return 0, 0, err
	}
	oc, err := occupancyCalculator(ctx.drv, "cuOccupancyMaxPotentialBlockSize")
	if err != nil {
		return 0, 0, err
	}
	h, err := k.Handle(ctx.drv)
	if err != nil {
		return 0, 0, err
	}
	return oc.OccupancyMaxPotentialBlockSize(ctx.h, h, uint64(max(dynSmem, 0)), max(blockLimit, 0))
}

// SuggestBlockSizeFunc is SuggestBlockSize for a kernel whose dynamic shared
// memory depends on its block size: dynSmem(block) bytes. It searches the
// multiples of the warp size as cuOccupancyMaxPotentialBlockSize does with
// its callback, but in Go, with one occupancy query per candidate (cgo
// cannot hand a Go function to the driver as a C callback).
func (k *Kernel) SuggestBlockSizeFunc(ctx *Context, dynSmem func(block int) int, blockLimit int) (minGrid, block int, err error) {
	const op = "rt.Kernel.SuggestBlockSizeFunc"
	if err := ctx.check(op); err != nil {
		return 0, 0, err
	}
	if dynSmem == nil {
		return 0, 0, Errorf(op, ErrInvalidValue, "nil dynamic shared memory function")
	}
	dev := ctx.Device()
	warp, err := dev.Attribute(AttrWarpSize)
	if err != nil {
		return 0, 0, err
	}
	sms, err := dev.Attribute(AttrMultiprocessorCount)
	if err != nil {
		return 0, 0, err
	}
	limit, err := dev.Attribute(AttrMaxThreadsPerBlock)
	if err != nil {
		return 0, 0, err
	}
	if kmax, err := k.Attribute(dev, FuncMaxThreadsPerBlock); err == nil && kmax > 0 {
		limit = min(limit, kmax)
	}
	if blockLimit > 0 {
		limit = min(limit, blockLimit)
	}
	warp = max(warp, 1)
	best, bestBlocks := 0, 0
	for b := max(limit/warp*warp, warp); b > 0; b -= warp {
		n, err := k.MaxActiveBlocksPerSM(ctx, b, dynSmem(b))
		if err != nil {
			return 0, 0, err
		}
		if n*b > best*bestBlocks || block == 0 {
			block, best, bestBlocks = b, b, n
		}
	}
	return bestBlocks * sms, block, nil
}

// DriverParams is the kernel's parameter layout as driver d reports it
// (ParamInfoer; cuKernelGetParamInfo on CUDA 12.4+): rt checks the
// generated layout against it when it binds the kernel, so it has Params'
// count and sizes where the driver can tell, and Params' offsets unless rt
// has the parameters placed (Placed). ErrNotSupported where it cannot.
func (k *Kernel) DriverParams(d Driver) ([]ParamSpec, error) {
	b, err := k.binding(d)
	if err != nil {
		return nil, err
	}
	if b.layout == nil {
		pi, ok := d.(ParamInfoer)
		if !ok {
			return nil, Errorf("rt.Kernel.DriverParams", ErrNotSupported, "backend %s does not report parameter layouts", d.Name())
		}
		return pi.KernelParamInfo(b.h)
	}
	return append([]ParamSpec(nil), b.layout...), nil
}
