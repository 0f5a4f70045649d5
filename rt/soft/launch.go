package soft

import (
	"fmt"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// Launch is cuLaunchKernel. The launch is validated and its parameters
// copied synchronously; the kernel runs asynchronously on its stream and
// its execution errors are reported by the next synchronising call, unless
// Options.LaunchBlocking is set.
func (d *Driver) Launch(k rt.KernelHandle, la rt.LaunchArgs) error {
	const op = "cuLaunchKernel"
	d.mu.Lock()
	p, moves := d.kernels[k], d.placed[k]
	d.mu.Unlock()
	if p == nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	var err error
	if moves != nil {
		if la, err = place(op, p, moves, la); err != nil {
			return err
		}
	}
	var s *stream
	if la.Stream > rt.StreamPerThread {
		s, err = d.stream(op, 0, la.Stream)
	} else { // the NULL, legacy or per-thread stream of la.Ctx
		s, err = d.stream(op, la.Ctx, la.Stream)
	}
	if err != nil {
		return err
	}
	c := s.ctx
	if err := d.checkLaunch(op, p, c, la); err != nil {
		return err
	}
	d.mu.Lock()
	lib := d.modLibs[p.Module]
	d.mu.Unlock()
	if lib == nil {
		return rt.Errorf(op, rt.ErrInvalidHandle, "kernel %s: its library was unloaded", p.Name)
	}
	var vars []uint64
	if p.UsesVars {
		in, err := lib.instance(c)
		if err != nil {
			return err
		}
		vars = in.addr
	}
	args := unsafe.Slice((*byte)(la.Params), la.ParamSize)
	if d.raceStreams() {
		if err := d.orderStreams(op, s, d.launchSpans(p, args, vars), kernelDesc(p), false); err != nil {
			return err
		}
	}
	// The launch is built in a work of s's, reused from an earlier one
	// with its parameter buffer: a steady stream of launches allocates
	// nothing.
	w := s.take()
	n := int(la.ParamSize/8 + 1)
	if cap(w.pbuf) < n {
		w.pbuf = make([]uint64, n)
	}
	params := unsafe.Slice((*byte)(unsafe.Pointer(&w.pbuf[0])), la.ParamSize)
	copy(params, args)
	w.l = exec.Launch{Program: p, Host: c, Mem: d.mem, Config: &d.cfg, Grid: la.Grid, Block: la.Block, Cluster: la.Cluster,
		DynShared: la.SharedMem, Params: params, Vars: vars, Cooperative: la.Cooperative}
	o, err := d.submitWork(op, s, nil, w)
	if err != nil || o.none() { // failed, or captured
		// w is not given back for reuse: a captured kernel node keeps
		// w.pbuf as its parameters.
		return err
	}
	d.launched(s, p, args, vars)
	if d.opt.LaunchBlocking {
		o.wait()
		if err := s.wait(); err != nil {
			if e, ok := err.(*rt.Error); ok {
				e2 := *e
				e2.Async = false
				return &e2
			}
			return err
		}
	}
	return nil
}

// checkLaunch checks a launch of p in c, or a graph node's: its shapes
// (rt's, normalized, each checked against a device limit that starts at 1),
// shared memory and parameter buffer.
func (d *Driver) checkLaunch(op string, p *exec.Program, c *context, la rt.LaunchArgs) error {
	g, b := la.Grid, la.Block
	nthreads := uint64(b.X) * uint64(b.Y) * uint64(b.Z)
	switch {
	case !inRange(b.X, maxThreadsPerBlock) || !inRange(b.Y, maxThreadsPerBlock) || !inRange(b.Z, maxBlockDimZ) || nthreads > maxThreadsPerBlock:
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: block %dx%dx%d is outside the device limits (1 to 1024 threads, z 1 to 64)", p.Name, b.X, b.Y, b.Z)
	case !inRange(g.X, maxGridDimX) || !inRange(g.Y, maxGridDimYZ) || !inRange(g.Z, maxGridDimYZ):
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: grid %dx%dx%d is outside the device limits", p.Name, g.X, g.Y, g.Z)
	}
	if err := checkNTID(p, b); err != nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %v", p.Name, err)
	}
	shared := uint64(p.SharedSize) // not counting the reserved KB, as the device's limit does not
	if la.SharedMem > 0 {
		shared = uint64(p.DynSharedOff) - exec.ReservedShared + uint64(la.SharedMem)
	}
	if shared > sharedPerBlockOpt {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %d bytes of shared memory exceed the device's %d", p.Name, shared, sharedPerBlockOpt)
	}
	if limit := d.maxDynamicShared(p, c.dev.ord); int(la.SharedMem) > limit {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: %d bytes of dynamic shared memory exceed its limit of %d on device %d; raise the limit with rt.Kernel.SetMaxDynamicSharedMemory (FuncMaxDynamicSharedSizeBytes)",
			p.Name, la.SharedMem, limit, c.dev.ord)
	}
	if la.ParamSize < uintptr(p.ParamSize) || la.ParamSize > 0 && la.Params == nil {
		return rt.Errorf(op, rt.ErrInvalidValue, "kernel %s: parameter buffer of %d bytes, the kernel's parameters need %d", p.Name, la.ParamSize, p.ParamSize)
	}
	if code, err := exec.CheckCluster(p, g, la.Cluster, d.nonPortableCluster(p, c.dev.ord)); err != nil {
		return rt.Errorf(op, code, "kernel %s: %v", p.Name, err)
	}
	if la.Cooperative && g.Count() > exec.NumSMs*uint64(max(1, 2048/nthreads)) {
		return rt.Errorf(op, rt.ErrCooperativeLaunchTooLarge, "kernel %s: %d blocks cannot all be resident", p.Name, g.Count())
	}
	return nil
}

// inRange reports whether a launch dimension lies in 1..limit.
func inRange(v uint32, limit uint64) bool { return v >= 1 && uint64(v) <= limit }

// KernelParamInfo is cuKernelGetParamInfo: the kernel's parameters as the
// PTX lays them out, which is where soft reads them from the buffer.
func (d *Driver) KernelParamInfo(k rt.KernelHandle) ([]rt.ParamSpec, error) {
	d.mu.Lock()
	p := d.kernels[k]
	d.mu.Unlock()
	if p == nil {
		return nil, rt.Errorf("cuKernelGetParamInfo", rt.ErrInvalidHandle, "kernel handle %#x is not loaded", uintptr(k))
	}
	offs, _ := exec.LayoutParams(p.Func.Params, 0)
	specs := make([]rt.ParamSpec, len(offs))
	for i, q := range p.Func.Params {
		size, _ := exec.ParamSize(q)
		specs[i] = rt.ParamSpec{Offset: offs[i], Size: size}
	}
	return specs, nil
}

func checkNTID(p *exec.Program, b rt.Dim3) error {
	dims := []uint32{b.X, b.Y, b.Z}
	if len(p.ReqNTID) > 0 {
		for i, n := range p.ReqNTID {
			if int(dims[i]) != n {
				return fmt.Errorf("block %dx%dx%d does not match .reqntid %v", b.X, b.Y, b.Z, p.ReqNTID)
			}
		}
	}
	if len(p.MaxNTID) > 0 {
		t := 1
		for _, n := range p.MaxNTID {
			t *= n
		}
		if int(b.Count()) > t {
			return fmt.Errorf("block of %d threads exceeds .maxntid %v", b.Count(), p.MaxNTID)
		}
	}
	return nil
}

// run runs l and counts what it executed; its fault, if it is one of the
// sticky kinds, leaves its context unusable (sticky.go).
func (d *Driver) run(l *exec.Launch) error {
	err := l.Run()
	d.instrCount.Add(l.Executed())
	workers, wall, late, early := l.Spread()
	d.runTime.Add(int64(wall))
	d.workerTime.Add(int64(workers) * int64(wall))
	d.lateTime.Add(int64(late))
	d.earlyTime.Add(int64(early))
	if err != nil {
		l.Host.(*context).poison(err)
	}
	return err
}
