package soft

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
)

// library is a loaded module: parsed and decoded once, shared by every
// context. Its .global/.const variables are instantiated per context.
type library struct {
	d     *Driver
	h     rt.LibHandle
	file  string
	mod   *ptx.Module
	funcs map[string]*ptx.Func // definitions win over prototypes
	vars  []*ptx.Var           // module .global and .const variables
	progs []*program
	khs   []rt.KernelHandle

	mu       sync.Mutex
	insts    map[*context]*instance
	managed  map[int]*alloc // managed variables, one allocation for all contexts
	unloaded bool

	// Function addresses (indirect.go).
	serial uint64
	faddr  map[string]uint64
	byAddr map[uint64]*ptx.Func
	taken  []*ptx.Func // functions whose address is taken

	// scope is the module's variables and functions by name, made once
	// and shared (read-only) by every kernel's decoder (decode.go).
	scopeOnce sync.Once
	scope     *scope
}

// instance is a library's variables in one context.
type instance struct {
	addr   []uint64 // by variable index
	allocs []*alloc
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
	contractFMA(mod)
	lib, err := d.newLibrary(name, mod)
	if err != nil {
		return 0, err
	}
	lib.indexFuncs()
	for _, f := range mod.Entries() {
		p, err := decodeKernel(lib, f)
		if err != nil {
			return 0, rt.Errorf(op, rt.ErrInvalidPTX, "%v", err)
		}
		if d.opt.RaceCheck != RaceOff {
			instrument(p)
		}
		yieldInSpins(p)
		if d.opt.ShuffleSeed != 0 {
			yieldInLoops(p)
		}
		lib.progs = append(lib.progs, p)
	}
	if err := lib.checkInits(); err != nil {
		return 0, err
	}
	d.mu.Lock()
	lib.h = rt.LibHandle(d.handle())
	d.libs[lib.h] = lib
	for _, p := range lib.progs {
		k := rt.KernelHandle(d.handle())
		d.kernels[k] = p
		lib.khs = append(lib.khs, k)
	}
	d.mu.Unlock()
	return lib.h, nil
}

// newLibrary is a parsed module as a library, its module-scope
// declarations checked (the target, the variables); its kernels are not
// decoded yet. (check.go builds one from a module of skipped bodies.)
func (d *Driver) newLibrary(name string, mod *ptx.Module) (*library, error) {
	const op = "cuLibraryLoadData"
	lib := &library{d: d, file: name, mod: mod, funcs: map[string]*ptx.Func{},
		insts: map[*context]*instance{}, managed: map[int]*alloc{}}
	if err := d.checkTarget(mod); err != nil {
		return nil, err
	}
	for _, f := range mod.Funcs {
		if prev := lib.funcs[f.Name]; prev == nil || prev.Body == nil {
			lib.funcs[f.Name] = f
		}
	}
	for _, v := range mod.Vars {
		switch v.Space {
		case ptx.SpaceGlobal, ptx.SpaceConst:
			if v.Linkage == ptx.LinkExtern {
				return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: .extern variable %s: the soft backend does not link separate device code", v.Pos, v.Name)
			}
			if varSize(v) < 0 {
				return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: variable %s has no size", v.Pos, v.Name)
			}
			lib.vars = append(lib.vars, v)
		case ptx.SpaceShared:
		default:
			return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: module-scope .%s variable %s is not supported", v.Pos, v.Space, v.Name)
		}
	}
	return lib, nil
}

// checkInits evaluates every initializer, so that a bad one fails the
// load, not a launch.
func (lib *library) checkInits() error {
	for _, v := range lib.vars {
		if _, err := lib.initBytes(v, func(string) (uint64, bool) { return 0, true }); err != nil {
			return rt.Errorf("cuLibraryLoadData", rt.ErrInvalidPTX, "%v", err)
		}
	}
	return nil
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

func (d *Driver) checkTarget(mod *ptx.Module) error {
	const op = "cuLibraryLoadData"
	if mod.Version.Major > 9 {
		return rt.Errorf(op, rt.ErrUnsupportedPTXVersion, "%s: PTX ISA %d.%d is newer than the soft backend supports (9.x)",
			mod.Version.Pos, mod.Version.Major, mod.Version.Minor)
	}
	if mod.AddressSize == 32 {
		return rt.Errorf(op, rt.ErrInvalidPTX, "%s: 32-bit PTX (.address_size 32) is not supported", mod.File)
	}
	if slices.Contains(mod.Target, "debug") && !hasDWARF(mod) {
		// ptxas's words, seen on the H100.
		return rt.Errorf(op, rt.ErrInvalidPTX, "%s: Debug information not found in presence of .target debug", mod.File)
	}
	for _, t := range mod.Target {
		if !strings.HasPrefix(t, "sm_") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimRight(t[3:], "abcdefghijklmnopqrstuvwxyz"))
		if err == nil && n > d.opt.ComputeCapability {
			return rt.Errorf(op, rt.ErrInvalidPTX, "%s: PTX targets %s but the emulated device is sm_%d (soft.Options.ComputeCapability)",
				mod.File, t, d.opt.ComputeCapability)
		}
	}
	return nil
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
	for _, k := range lib.khs {
		delete(d.kernels, k)
	}
	d.mu.Unlock()
	lib.mu.Lock()
	lib.unloaded = true
	insts := lib.insts
	lib.insts = map[*context]*instance{}
	managed := lib.managed
	lib.managed = map[int]*alloc{}
	lib.mu.Unlock()
	for c, in := range insts {
		_ = c.synchronize()
		c.mu.Lock()
		for _, a := range in.allocs {
			delete(c.allocs, a.base)
		}
		delete(c.insts, lib)
		c.mu.Unlock()
		for _, a := range in.allocs {
			d.mem.free(a)
			c.dev.release(a.size)
		}
	}
	for _, a := range managed {
		d.mem.free(a)
	}
	return nil
}

// LibraryKernel is cuLibraryGetKernel.
func (d *Driver) LibraryKernel(h rt.LibHandle, name string) (rt.KernelHandle, error) {
	lib, err := d.library("cuLibraryGetKernel", h)
	if err != nil {
		return 0, err
	}
	for i, p := range lib.progs {
		if p.name == name {
			return lib.khs[i], nil
		}
	}
	return 0, rt.Errorf("cuLibraryGetKernel", rt.ErrNotFound, "no kernel %q in %s", name, lib.file)
}

// LibraryKernelNames lists the kernels in source order.
func (d *Driver) LibraryKernelNames(h rt.LibHandle) ([]string, error) {
	lib, err := d.library("cuLibraryEnumerateKernels", h)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range lib.progs {
		out = append(out, p.name)
	}
	return out, nil
}

func (lib *library) varIndex(name string) int {
	for i, v := range lib.vars {
		if v.Name == name {
			return i
		}
	}
	return -1
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
	i := lib.varIndex(name)
	switch {
	case managed && (i < 0 || !lib.vars[i].Managed):
		return 0, 0, rt.Errorf(op, rt.ErrNotFound, "no __managed__ variable %q in %s", name, lib.file)
	case i < 0:
		return 0, 0, rt.Errorf(op, rt.ErrNotFound, "no .global or .const variable %q in %s", name, lib.file)
	}
	in, err := lib.instance(c)
	if err != nil {
		return 0, 0, err
	}
	return rt.DevPtr(in.addr[i]), uint64(varSize(lib.vars[i])), nil
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
	in := &instance{addr: make([]uint64, len(lib.vars))}
	allocs := make([]*alloc, len(lib.vars))
	for i, v := range lib.vars {
		size := uint64(varSize(v))
		if size == 0 {
			size = 1
		}
		if v.Managed {
			a := lib.managed[i]
			if a == nil {
				a = d.mem.insertManaged(size, "managed variable "+v.Name+" of "+lib.file)
				lib.managed[i] = a
				allocs[i] = a
			}
			in.addr[i] = a.base
			continue
		}
		a, err := d.allocate(op, c, size, "variable "+v.Name+" of "+lib.file)
		if err != nil {
			for _, a := range in.allocs {
				d.mem.free(a)
			}
			return nil, err
		}
		a.readOnly = v.Space == ptx.SpaceConst
		in.addr[i] = a.base
		in.allocs = append(in.allocs, a)
		allocs[i] = a
	}
	addr := func(name string) (uint64, bool) {
		if j := lib.varIndex(name); j >= 0 {
			return in.addr[j], true
		}
		if a, ok := lib.faddr[name]; ok {
			return a, true
		}
		return 0, false
	}
	for i, v := range lib.vars {
		if allocs[i] == nil { // a managed variable initialised earlier
			continue
		}
		b, err := lib.initBytes(v, addr)
		if err != nil {
			return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%v", err)
		}
		copy(allocs[i].bytes(), b)
	}
	lib.insts[c] = in
	c.mu.Lock()
	c.insts[lib] = in
	c.mu.Unlock()
	return in, nil
}

// initBytes evaluates a variable's initialiser into its bytes (the
// omitted tail stays zero). addr resolves symbols to this context.
func (lib *library) initBytes(v *ptx.Var, addr func(string) (uint64, bool)) ([]byte, error) {
	d, err := v.InitData()
	if d == nil || err != nil {
		return nil, err
	}
	for _, a := range d.Addrs {
		base, ok := addr(a.Sym)
		if !ok {
			return nil, fmt.Errorf("%s: initialiser of %s refers to %s, which is not a .global/.const variable of this module", a.Pos, v.Name, a.Sym)
		}
		a.Put(d.Bytes, base)
	}
	return d.Bytes, nil
}
