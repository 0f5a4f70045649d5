package soft

import (
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// Kernel attributes (rt.KernelAttributer) and occupancy
// (rt.OccupancyCalculator). Soft compiles nothing, so what it reports is
// what the PTX says and what its executor uses:
//
//   - MaxThreadsPerBlock: the kernel's .maxntid or .reqntid, else 1024.
//   - SharedSizeBytes: its static shared memory; ConstSizeBytes: the
//     module's .const variables; LocalSizeBytes: its local memory per thread
//     (local arrays and call frames of the deepest call chain).
//   - NumRegs: the register slots of soft's bytecode for the kernel (the PTX
//     registers it uses, plus immediates), at most 255: no register
//     allocation happens, so it is an upper bound of what ptxas would give.
//   - PTXVersion: the module's .target (70 for sm_70); BinaryVersion: the
//     emulated device's compute capability (Options.ComputeCapability).
//   - MaxDynamicSharedSizeBytes: 48 KiB minus the static shared memory
//     until set, at most 227 KiB minus it; a launch asking for more fails
//     as on a GPU. The carveout, cluster and scheduling attributes keep
//     what is set and change nothing.
//
// Occupancy follows an sm_90 multiprocessor: 2048 threads, 32 blocks,
// 65536 registers allocated per warp in units of 256, and 228 KiB of shared
// memory of which each block also takes 1 KiB, with NumRegs as above.

var (
	_ rt.KernelAttributer    = (*Driver)(nil)
	_ rt.OccupancyCalculator = (*Driver)(nil)
)

// The sm_90 multiprocessor's occupancy limits (sharedPerBlock and the
// others are in driver.go; numSMs and sharedPerBlockRes, program.go).
const (
	threadsPerSM = 2048
	blocksPerSM  = 32
	regsPerSM    = 65536
	regAllocUnit = 256 // registers, per warp
	sharedPerSM  = 228 << 10
)

type kattrKey struct {
	p    *exec.Program
	dev  int
	attr rt.FuncAttr
}

func (d *Driver) program(op string, k rt.KernelHandle) (*exec.Program, error) {
	d.mu.Lock()
	p := d.kernels[k]
	d.mu.Unlock()
	if p == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	return p, nil
}

// KernelAttribute is cuKernelGetAttribute.
func (d *Driver) KernelAttribute(k rt.KernelHandle, attr rt.FuncAttr, dev int) (int, error) {
	const op = "cuKernelGetAttribute"
	p, err := d.program(op, k)
	if err != nil {
		return 0, err
	}
	if _, err := d.dev(op, dev); err != nil {
		return 0, err
	}
	d.ext.mu.Lock()
	d.ext.init()
	v, set := d.ext.kattrs[kattrKey{p, dev, attr}]
	d.ext.mu.Unlock()
	if set {
		return v, nil
	}
	switch attr {
	case rt.FuncMaxThreadsPerBlock:
		return maxThreads(p), nil
	case rt.FuncSharedSizeBytes:
		return int(p.SharedSize), nil
	case rt.FuncConstSizeBytes:
		n := 0
		for _, v := range p.Module.Vars {
			if v.Space == ptx.SpaceConst {
				n += int(exec.VarSize(v))
			}
		}
		return n, nil
	case rt.FuncLocalSizeBytes:
		return int(p.Stack), nil
	case rt.FuncNumRegs:
		return numRegs(p), nil
	case rt.FuncPTXVersion:
		return targetVersion(p.Module.PTX.Target), nil
	case rt.FuncBinaryVersion:
		return d.opt.ComputeCapability, nil
	case rt.FuncMaxDynamicSharedSizeBytes:
		return max(sharedPerBlock-int(p.SharedSize), 0), nil
	case rt.FuncPreferredSharedMemoryCarveout:
		return -1, nil
	case rt.FuncCacheModeCA, rt.FuncClusterSizeMustBeSet, rt.FuncRequiredClusterWidth, rt.FuncRequiredClusterHeight,
		rt.FuncRequiredClusterDepth, rt.FuncNonPortableClusterSizeAllowed, rt.FuncClusterSchedulingPolicyPreference:
		return 0, nil
	}
	return 0, rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: attribute %d", p.Name, attr)
}

// SetKernelAttribute is cuKernelSetAttribute.
func (d *Driver) SetKernelAttribute(k rt.KernelHandle, attr rt.FuncAttr, v int, dev int) error {
	const op = "cuKernelSetAttribute"
	p, err := d.program(op, k)
	if err != nil {
		return err
	}
	if _, err := d.dev(op, dev); err != nil {
		return err
	}
	ok := false
	switch attr {
	case rt.FuncMaxDynamicSharedSizeBytes:
		ok = v >= 0 && v <= sharedPerBlockOpt-int(p.SharedSize)
	case rt.FuncPreferredSharedMemoryCarveout:
		ok = v >= -1 && v <= 100
	case rt.FuncRequiredClusterWidth, rt.FuncRequiredClusterHeight, rt.FuncRequiredClusterDepth:
		ok = v >= 0 && v <= 16
	case rt.FuncNonPortableClusterSizeAllowed:
		ok = v == 0 || v == 1
	case rt.FuncClusterSchedulingPolicyPreference:
		ok = v >= 0 && v <= 2
	}
	if !ok && attr == rt.FuncMaxDynamicSharedSizeBytes {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: max dynamic shared memory %d: it must be 0 to %d bytes (the device's %d per block opted in, less the kernel's %d static)",
			p.Name, v, sharedPerBlockOpt-int(p.SharedSize), sharedPerBlockOpt, p.SharedSize)
	}
	if !ok {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: attribute %d cannot be set to %d", p.Name, attr, v)
	}
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	d.ext.kattrs[kattrKey{p, dev, attr}] = v
	return nil
}

// forget drops the attributes set on ps, kernels of an unloaded library.
func (x *extState) forget(ps []*exec.Program) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range x.kattrs {
		for _, p := range ps {
			if k.p == p {
				delete(x.kattrs, k)
			}
		}
	}
}

// maxDynamicShared is the most dynamic shared memory a launch of p may ask
// for on dev.
func (d *Driver) maxDynamicShared(p *exec.Program, dev int) int {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	if v, ok := d.ext.kattrs[kattrKey{p, dev, rt.FuncMaxDynamicSharedSizeBytes}]; ok {
		return v
	}
	return max(sharedPerBlock-int(p.SharedSize), 0)
}

func maxThreads(p *exec.Program) int {
	for _, dims := range [][]int{p.ReqNTID, p.MaxNTID} {
		if len(dims) > 0 {
			t := 1
			for _, n := range dims {
				t *= n
			}
			return min(t, maxThreadsPerBlock)
		}
	}
	return maxThreadsPerBlock
}

func numRegs(p *exec.Program) int { return min(max(p.NSlots, 1), 255) }

// targetVersion is the sm number of a .target directive ("sm_70" → 70).
func targetVersion(target []string) int {
	for _, t := range target {
		if s, ok := strings.CutPrefix(t, "sm_"); ok {
			s = strings.TrimRight(s, "af")
			if v, err := strconv.Atoi(s); err == nil {
				return v
			}
		}
	}
	return 0
}

// OccupancyMaxActiveBlocks is cuOccupancyMaxActiveBlocksPerMultiprocessor.
func (d *Driver) OccupancyMaxActiveBlocks(ch rt.CtxHandle, k rt.KernelHandle, block int, dynSmem uint64) (int, error) {
	const op = "cuOccupancyMaxActiveBlocksPerMultiprocessor"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, err
	}
	p, err := d.program(op, k)
	if err != nil {
		return 0, err
	}
	if block <= 0 {
		return 0, rt.Errorf(op, rt.ErrInvalidValue, "block size %d", block)
	}
	return d.activeBlocks(p, c.dev.ord, block, dynSmem), nil
}

// activeBlocks is the occupancy model of the file comment.
func (d *Driver) activeBlocks(p *exec.Program, dev, block int, dynSmem uint64) int {
	if block > maxThreads(p) || dynSmem > uint64(d.maxDynamicShared(p, dev)) {
		return 0
	}
	warps := (block + 31) / 32
	n := min(threadsPerSM/(warps*32), blocksPerSM)
	regsPerWarp := (numRegs(p)*32 + regAllocUnit - 1) / regAllocUnit * regAllocUnit
	n = min(n, regsPerSM/(regsPerWarp*warps))
	shared := int(p.SharedSize) + int(dynSmem) + exec.ReservedShared
	return min(n, sharedPerSM/shared)
}

// OccupancyMaxPotentialBlockSize is cuOccupancyMaxPotentialBlockSize with a
// fixed dynamic shared memory size: of the block sizes that are multiples
// of 32, the largest with the most resident threads.
func (d *Driver) OccupancyMaxPotentialBlockSize(ch rt.CtxHandle, k rt.KernelHandle, dynSmem uint64, blockLimit int) (minGrid, block int, err error) {
	const op = "cuOccupancyMaxPotentialBlockSize"
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, 0, err
	}
	p, err := d.program(op, k)
	if err != nil {
		return 0, 0, err
	}
	limit := maxThreads(p)
	if blockLimit > 0 {
		limit = min(limit, blockLimit)
	}
	best, bestN := 0, 0
	for b := max(limit/32*32, 32); b > 0; b -= 32 {
		n := d.activeBlocks(p, c.dev.ord, b, dynSmem)
		if n*b > best*bestN || best == 0 {
			best, bestN = b, n
		}
	}
	return bestN * exec.NumSMs, best, nil
}

// nonPortableCluster reports whether launches of p on dev may use clusters
// of more than 8 blocks (FuncNonPortableClusterSizeAllowed set to 1).
func (d *Driver) nonPortableCluster(p *exec.Program, dev int) bool {
	d.ext.mu.Lock()
	defer d.ext.mu.Unlock()
	d.ext.init()
	return d.ext.kattrs[kattrKey{p, dev, rt.FuncNonPortableClusterSizeAllowed}] == 1
}
