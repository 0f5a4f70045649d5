package soft

import (
	"bytes"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// library is a loaded module: its code (Module), parsed and decoded once
// and shared by every context, and its .global/.const variables, which
// exist once per context.
type library struct {
	*exec.Module
	d   *Driver
	h   rt.LibHandle
	khs []rt.KernelHandle

	mu       sync.Mutex
	insts    map[*context]*instance
	managed  map[int]*exec.Alloc // managed variables, one allocation for all contexts
	unloaded bool
}

// instance is a library's variables in one context.
type instance struct {
	addr   []uint64 // by variable index
	allocs []*exec.Alloc
}

// LibraryLoad is cuLibraryLoadData. PTX positions in errors name
// opts.Name, else the fatbin entry's identifier, else "module.ptx".
func (d *Driver) LibraryLoad(image []byte, opts rt.LoadOptions) (rt.LibHandle, error) {
	const op = "cuLibraryLoadData"
	name := opts.Name
	src, fname, err := d.pickImage(image)
	if err != nil {
		return 0, err
	}
	if name == "" {
		name = fname
	}
	if name == "" {
		name = "module.ptx"
	}
	mod, err := ptx.Parse(name, src)
	if err != nil {
		return 0, rt.Errorf(op, rt.ErrInvalidPTX, "%v", err)
	}
	m, err := exec.LoadModule(name, mod, &d.cfg)
	if err != nil {
		return 0, err
	}
	lib := &library{Module: m, d: d, insts: map[*context]*instance{}, managed: map[int]*exec.Alloc{}}
	d.mu.Lock()
	lib.h = rt.LibHandle(d.handle())
	d.libs[lib.h] = lib
	d.modLibs[m] = lib
	for _, p := range lib.Kernels {
		k := rt.KernelHandle(d.handle())
		d.kernels[k] = p
		lib.khs = append(lib.khs, k)
	}
	d.mu.Unlock()
	return lib.h, nil
}

// pickImage returns the PTX text of an image: PTX itself, or the PTX entry
// of a fatbin that the CUDA driver would JIT-compile on the emulated device
// (fatbin.SelectPTX: the newest compute_XX not above it). Soft executes PTX
// only, so where a GPU of its compute capability would load a cubin
// (fatbin.Select), soft runs that PTX instead: the same source, compiled
// for an equal or earlier target.
func (d *Driver) pickImage(image []byte) ([]byte, string, error) {
	const op = "cuLibraryLoadData"
	cc := d.opt.ComputeCapability
	switch fatbin.Sniff(image) {
	case fatbin.FormatPTX:
		return bytes.TrimRight(image, "\x00"), "", nil
	case fatbin.FormatFatbin:
		fb, err := fatbin.Parse(image)
		if err != nil {
			return nil, "", rt.Errorf(op, rt.ErrInvalidImage, "fatbin: %v", err)
		}
		best := fatbin.SelectPTX(fb.Entries, cc)
		if best == nil {
			var archs []string
			for _, e := range fb.Entries {
				archs = append(archs, e.Target())
			}
			return nil, "", rt.Errorf(op, rt.ErrNoBinaryForGPU,
				"the fatbin holds %s but no PTX for compute_%d or lower; the soft backend executes PTX only: build with a PTX target, e.g. -gencode arch=compute_%d,code=compute_%d",
				strings.Join(archs, ", "), cc, cc, cc)
		}
		src, err := best.Data()
		if err != nil {
			return nil, "", rt.Errorf(op, rt.ErrInvalidImage, "fatbin PTX entry: %v", err)
		}
		name := best.Identifier
		if name != "" && !strings.HasSuffix(name, ".ptx") {
			name += ".ptx"
		}
		return bytes.TrimRight(src, "\x00"), name, nil
	case fatbin.FormatCubin:
		return nil, "", rt.Errorf(op, rt.ErrNoBinaryForGPU,
			"the image is a cubin (SASS), which the soft backend cannot execute; embed PTX instead, e.g. -gencode arch=compute_%d,code=compute_%d", cc, cc)
	}
	return nil, "", rt.Errorf(op, rt.ErrInvalidImage, "the image is neither PTX text nor a fatbin")
}

func (d *Driver) library(op string, h rt.LibHandle) (*library, error) {
	d.mu.Lock()
	lib := d.libs[h]
	d.mu.Unlock()
	if lib == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "library %#x is not loaded", uintptr(h))
	}
	return lib, nil
}

// LibraryUnload is cuLibraryUnload: frees the variables in every context.
func (d *Driver) LibraryUnload(h rt.LibHandle) error {
	lib, err := d.library("cuLibraryUnload", h)
	if err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.libs, h)
	delete(d.modLibs, lib.Module)
	for _, k := range lib.khs {
		delete(d.kernels, k)
		delete(d.placed, k)
	}
	d.mu.Unlock()
	// What the driver keeps per kernel goes with it, so that the library's
	// code (its PTX and bytecode) can be collected.
	for _, p := range lib.Kernels {
		d.hz.writes.Delete(p)
	}
	d.ext.forget(lib.Kernels)
	lib.mu.Lock()
	lib.unloaded = true
	insts := lib.insts
	lib.insts = map[*context]*instance{}
	managed := lib.managed
	lib.managed = map[int]*exec.Alloc{}
	lib.mu.Unlock()
	for c, in := range insts {
		_ = c.synchronize()
		c.mu.Lock()
		for _, a := range in.allocs {
			delete(c.allocs, a.Base)
		}
		delete(c.insts, lib)
		c.mu.Unlock()
		for _, a := range in.allocs {
			d.mem.Free(a)
			c.dev.release(a.Size)
		}
	}
	for _, a := range managed {
		d.mem.Free(a)
	}
	return nil
}

// LibraryKernel is cuLibraryGetKernel.
func (d *Driver) LibraryKernel(h rt.LibHandle, name string) (rt.KernelHandle, error) {
	lib, err := d.library("cuLibraryGetKernel", h)
	if err != nil {
		return 0, err
	}
	for i, p := range lib.Kernels {
		if p.Name == name {
			return lib.khs[i], nil
		}
	}
	return 0, rt.Errorf("cuLibraryGetKernel", rt.ErrNotFound, "no kernel %q in %s", name, lib.File)
}

// LibraryKernelNames lists the kernels in source order.
func (d *Driver) LibraryKernelNames(h rt.LibHandle) ([]string, error) {
	lib, err := d.library("cuLibraryEnumerateKernels", h)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range lib.Kernels {
		out = append(out, p.Name)
	}
	return out, nil
}

// LibraryGlobal is cuLibraryGetGlobal: the variable's address in ctx.
func (d *Driver) LibraryGlobal(ch rt.CtxHandle, h rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	return d.variable("cuLibraryGetGlobal", ch, h, name, false)
}

// LibraryManaged is cuLibraryGetManaged: one address in every context.
func (d *Driver) LibraryManaged(ch rt.CtxHandle, h rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	return d.variable("cuLibraryGetManaged", ch, h, name, true)
}

// variable finds a library variable's address and size in context ch;
// managed asks for a __managed__ one.
func (d *Driver) variable(op string, ch rt.CtxHandle, h rt.LibHandle, name string, managed bool) (rt.DevPtr, uint64, error) {
	lib, err := d.library(op, h)
	if err != nil {
		return 0, 0, err
	}
	c, err := d.ctx(op, ch)
	if err != nil {
		return 0, 0, err
	}
	i := lib.VarIndex(name)
	switch {
	case managed && (i < 0 || !lib.Vars[i].Managed):
		return 0, 0, rt.Errorf(op, rt.ErrNotFound, "no __managed__ variable %q in %s", name, lib.File)
	case i < 0:
		return 0, 0, rt.Errorf(op, rt.ErrNotFound, "no .global or .const variable %q in %s", name, lib.File)
	}
	in, err := lib.instance(c)
	if err != nil {
		return 0, 0, err
	}
	return rt.DevPtr(in.addr[i]), uint64(exec.VarSize(lib.Vars[i])), nil
}

// instance returns (creating on first use) the library's variables in c.
func (lib *library) instance(c *context) (*instance, error) {
	const op = "cuLibraryGetGlobal"
	lib.mu.Lock()
	defer lib.mu.Unlock()
	if lib.unloaded {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "library was unloaded")
	}
	if in := lib.insts[c]; in != nil {
		return in, nil
	}
	d := lib.d
	in := &instance{addr: make([]uint64, len(lib.Vars))}
	allocs := make([]*exec.Alloc, len(lib.Vars))
	for i, v := range lib.Vars {
		size := uint64(exec.VarSize(v))
		if size == 0 {
			size = 1
		}
		if v.Managed {
			a := lib.managed[i]
			if a == nil {
				a = d.mem.InsertManaged(size, "managed variable "+v.Name+" of "+lib.File)
				lib.managed[i] = a
				allocs[i] = a
			}
			in.addr[i] = a.Base
			continue
		}
		a, err := d.allocate(op, c, size, "variable "+v.Name+" of "+lib.File)
		if err != nil {
			for _, a := range in.allocs {
				d.mem.Free(a)
			}
			return nil, err
		}
		a.ReadOnly = v.Space == ptx.SpaceConst
		in.addr[i] = a.Base
		in.allocs = append(in.allocs, a)
		allocs[i] = a
	}
	addr := func(name string) (uint64, bool) {
		if j := lib.VarIndex(name); j >= 0 {
			return in.addr[j], true
		}
		if a, ok := lib.FuncAddr[name]; ok {
			return a, true
		}
		return 0, false
	}
	for i, v := range lib.Vars {
		if allocs[i] == nil { // a managed variable initialised earlier
			continue
		}
		b, err := lib.InitBytes(v, addr)
		if err != nil {
			return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%v", err)
		}
		devmem.CopyIn(allocs[i].Bytes(), b)
	}
	lib.insts[c] = in
	c.mu.Lock()
	c.insts[lib] = in
	c.mu.Unlock()
	return in, nil
}
