//go:build cgo

package cgo

/*
#include <stdlib.h>
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt"
)

// jitLogSize is the size of each of a library's JIT log buffers.
const jitLogSize = 16 << 10

// library is one loaded image.
type library struct {
	legacy bool
	// image is the backend's C copy of the image, NUL-terminated (PTX must
	// be; cubins and fatbins are self-describing and ignore the extra byte).
	// It lives until unload: the context-independent path loads with
	// CU_LIBRARY_BINARY_IS_PRESERVED so that the driver need not keep a copy
	// of its own, and the legacy path loads it again in each new context.
	image unsafe.Pointer
	// log and info are the JIT's error and info log buffers. They also live
	// until unload, because with lazy loading the JIT may run after the load
	// call returns.
	log, info *C.char
	jit       C.cg_jit_opts // the load's JIT options (legacy: for every context)
	lib       C.CUlibrary   // context-independent path

	mu       sync.Mutex
	unloaded bool
	kernels  map[string]rt.KernelHandle
	mods     map[C.CUcontext]*ctxModule // legacy path: the module in each context
}

// ctxModule is a legacy library's module in one context.
type ctxModule struct {
	mod C.CUmodule
	dev int
	fns map[string]C.CUfunction
}

// kernel is one kernel of a library.
type kernel struct {
	lib  *library
	name string
	// fn is the CUkernel cast to CUfunction (context-independent path):
	// cuLaunchKernel accepts it and runs it in the launch's context. It is
	// nil where launches take launchSlow: legacy kernels, and placed ones.
	fn   C.CUfunction
	k    C.CUkernel
	dead atomic.Bool
	// place holds, once PlaceParams was called, each parameter's offset in
	// the packed buffers launches pass (place.go).
	place []C.uint
	// attrs are attribute values set on a legacy kernel per device, applied
	// to the CUfunction of every context of that device it is loaded in
	// later (guarded by lib.mu).
	attrs map[int]map[rt.FuncAttr]int
}

func (l *library) jitLog() string {
	if l.log == nil {
		return ""
	}
	return C.GoString(l.log)
}

// withLog adds the JIT log to a load or lookup error where there is one.
func (l *library) withLog(err error) error {
	if err == nil {
		return nil
	}
	if s := l.jitLog(); s != "" {
		if e, ok := err.(*rt.Error); ok {
			e.Detail = join(e.Detail, "JIT log: "+s)
		}
	}
	return err
}

func (d *Driver) library(h rt.LibHandle, op string) (*library, error) {
	l := d.libs.get(uintptr(h))
	if l == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "unknown LibHandle %d", h)
	}
	return l, nil
}

// LibraryLoad loads an image (PTX text, cubin or fatbin). By default it is
// cuLibraryLoadData: context-independent, valid before any context exists.
// With opts.Legacy, EnvLegacy, or a driver older than CUDA 12.0 the image is
// only copied here and loaded with cuModuleLoadDataEx in each context on
// first use.
func (d *Driver) LibraryLoad(image []byte, opts rt.LoadOptions) (rt.LibHandle, error) {
	if len(image) == 0 {
		return 0, rt.Errorf("cuLibraryLoadData", rt.ErrInvalidImage, "empty image")
	}
	legacy := opts.Legacy || d.forceLegacy || !d.hasLibrary
	if legacy {
		// The legacy path loads the image in a context only at first use, so
		// a refusal would come late (at a launch, seen on the H200); the
		// driver takes these three forms and nothing else.
		switch f := fatbin.Sniff(image); f {
		case fatbin.FormatPTX, fatbin.FormatCubin, fatbin.FormatFatbin:
		default:
			return 0, rt.Errorf("cuModuleLoadData", rt.ErrInvalidImage, "%d bytes that are not PTX, a cubin or a fatbin (%v)", len(image), f)
		}
	}
	n := len(image)
	if image[n-1] == 0 {
		n-- // already NUL-terminated
	}
	img := C.malloc(C.size_t(n + 1))
	C.memcpy(img, unsafe.Pointer(&image[0]), C.size_t(n))
	*(*byte)(unsafe.Add(img, n)) = 0
	l := &library{
		legacy:  legacy,
		image:   img,
		log:     (*C.char)(C.calloc(jitLogSize+1, 1)),
		info:    (*C.char)(C.calloc(jitLogSize+1, 1)),
		jit:     jitOpts(opts.JIT, 0),
		kernels: map[string]rt.KernelHandle{},
	}
	if l.legacy {
		l.mods = map[C.CUcontext]*ctxModule{}
	} else {
		var lib C.CUlibrary
		if rc := C.cg_library_load(&lib, img, 1, &l.jit, l.info, l.log, jitLogSize); rc != 0 {
			err := l.withLog(check("cuLibraryLoadData", rc))
			l.free()
			return 0, err
		}
		l.lib = lib
	}
	return rt.LibHandle(d.libs.add(l)), nil
}

func (l *library) free() {
	C.free(l.image)
	C.free(unsafe.Pointer(l.log))
	C.free(unsafe.Pointer(l.info))
	l.image, l.log, l.info = nil, nil, nil
}

// jitOpts is o in the shim's form; target 0 means the context's device.
func jitOpts(o rt.JITOptions, target int) C.cg_jit_opts {
	j := C.cg_jit_opts{
		target:    C.int(target),
		max_regs:  C.int(o.MaxRegisters),
		opt_level: -1,
		line_info: b2i(o.LineInfo),
		debug:     b2i(o.Debug),
		verbose:   b2i(o.Verbose),
	}
	if o.OptLevel > 0 {
		j.opt_level = C.int(o.OptLevel)
	}
	return j
}

// LibraryJITLog is the PTX compiler's info log for library h (what
// JITOptions.Verbose asks for: registers, spills, ...). With lazy loading
// the compiler may run at a kernel's first use in a context, so the log can
// grow after the load; on the legacy path it holds the last context's load.
func (d *Driver) LibraryJITLog(h rt.LibHandle) (string, error) {
	l, err := d.library(h, "LibraryJITLog")
	if err != nil {
		return "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return "", rt.Errorf("LibraryJITLog", rt.ErrInvalidHandle, "library %d is unloaded", h)
	}
	return C.GoString(l.info), nil
}

// LibraryUnload is cuLibraryUnload (legacy: cuModuleUnload in every context
// the library was loaded in). The library's kernel handles become invalid.
func (d *Driver) LibraryUnload(h rt.LibHandle) error {
	l, err := d.library(h, "cuLibraryUnload")
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return rt.Errorf("cuLibraryUnload", rt.ErrInvalidHandle, "library %d is already unloaded", h)
	}
	l.unloaded = true
	for _, kh := range l.kernels {
		if k := d.kernels.get(uintptr(kh)); k != nil {
			k.dead.Store(true)
		}
	}
	if !l.legacy {
		err = check("cuLibraryUnload", C.cg_library_unload(l.lib))
	} else {
		for ctx, m := range l.mods {
			// A context destroyed behind the backend's back took its module
			// with it; that is not an error of this unload.
			if e := check("cuModuleUnload", C.cg_module_unload(ctx, m.mod)); e != nil && !gone(e) && err == nil {
				err = e
			}
		}
		l.mods = nil
	}
	l.free()
	return err
}

// gone reports errors that mean the context (and so the module) no longer exists.
func gone(err error) bool {
	switch rt.CodeOf(err) {
	case rt.ErrInvalidContext, rt.ErrContextIsDestroyed, rt.ErrInvalidHandle, rt.ErrDeinitialized:
		return true
	}
	return false
}

// LibraryKernel is cuLibraryGetKernel. The same name gives the same handle.
// On the legacy path there is no context-free lookup: the name is checked in
// the calling thread's current context if it has one, and otherwise at the
// kernel's first use in a context.
func (d *Driver) LibraryKernel(h rt.LibHandle, name string) (rt.KernelHandle, error) {
	l, err := d.library(h, "cuLibraryGetKernel")
	if err != nil {
		return 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return 0, rt.Errorf("cuLibraryGetKernel", rt.ErrInvalidHandle, "library %d is unloaded", h)
	}
	if kh, ok := l.kernels[name]; ok {
		return kh, nil
	}
	k := &kernel{lib: l, name: name}
	if !l.legacy {
		cname := C.CString(name)
		rc := C.cg_library_kernel(l.lib, cname, &k.k)
		C.free(unsafe.Pointer(cname))
		if rc != 0 {
			return 0, l.withLog(checkd("cuLibraryGetKernel", rc, "kernel "+name))
		}
		k.fn = C.CUfunction(unsafe.Pointer(k.k))
	} else {
		var cur C.CUcontext
		if C.cg_ctx_get_current(&cur) == 0 && cur != nil {
			if _, err := d.legacyFunc(l, k, cur); err != nil {
				return 0, err
			}
		}
	}
	kh := rt.KernelHandle(d.kernels.add(k))
	l.kernels[name] = kh
	return kh, nil
}

// LibraryKernelNames lists the library's kernels (cuLibraryEnumerateKernels
// and cuKernelGetName, CUDA 12.3+), sorted. On the legacy path it uses the
// module in the calling thread's current context.
func (d *Driver) LibraryKernelNames(h rt.LibHandle) ([]string, error) {
	l, err := d.library(h, "cuLibraryEnumerateKernels")
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return nil, rt.Errorf("cuLibraryEnumerateKernels", rt.ErrInvalidHandle, "library %d is unloaded", h)
	}
	var names []string
	if !l.legacy {
		if C.cg_has(C.CG_SYM_KERNEL_NAME) == 0 {
			return nil, check("cuKernelGetName", C.CG_MISSING|C.CG_NOT_SUPPORTED)
		}
		var n C.uint
		if rc := C.cg_library_kernel_count(l.lib, &n); rc != 0 {
			return nil, check("cuLibraryGetKernelCount", rc)
		}
		if n == 0 {
			return []string{}, nil
		}
		ks := (*C.CUkernel)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.CUkernel(nil)))))
		defer C.free(unsafe.Pointer(ks))
		if rc := C.cg_library_kernels(l.lib, ks, n); rc != 0 {
			return nil, check("cuLibraryEnumerateKernels", rc)
		}
		for _, k := range unsafe.Slice(ks, int(n)) {
			var s *C.char
			if rc := C.cg_kernel_name(k, &s); rc != 0 {
				return nil, check("cuKernelGetName", rc)
			}
			names = append(names, C.GoString(s))
		}
	} else {
		ctx, err := currentCtx("cuModuleEnumerateFunctions")
		if err != nil {
			return nil, err
		}
		m, err := d.legacyModule(l, ctx)
		if err != nil {
			return nil, err
		}
		if names, err = legacyNames(ctx, m); err != nil {
			return nil, err
		}
	}
	sort.Strings(names)
	return names, nil
}

func legacyNames(ctx C.CUcontext, m *ctxModule) ([]string, error) {
	if C.cg_has(C.CG_SYM_MODULE_ENUMERATE) == 0 || C.cg_has(C.CG_SYM_FUNC_NAME) == 0 {
		return nil, check("cuModuleEnumerateFunctions", C.CG_MISSING|C.CG_NOT_SUPPORTED)
	}
	var n C.uint
	if rc := C.cg_module_function_count(ctx, m.mod, &n); rc != 0 {
		return nil, check("cuModuleGetFunctionCount", rc)
	}
	names := []string{}
	if n == 0 {
		return names, nil
	}
	fs := (*C.CUfunction)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.CUfunction(nil)))))
	defer C.free(unsafe.Pointer(fs))
	if rc := C.cg_module_functions(ctx, m.mod, fs, n); rc != 0 {
		return nil, check("cuModuleEnumerateFunctions", rc)
	}
	for _, f := range unsafe.Slice(fs, int(n)) {
		var s *C.char
		if rc := C.cg_func_name(f, &s); rc != 0 {
			return nil, check("cuFuncGetName", rc)
		}
		names = append(names, C.GoString(s))
	}
	return names, nil
}

// LibraryGlobal is cuLibraryGetGlobal in ctx: __device__ and __constant__
// variables exist once per context (legacy: cuModuleGetGlobal).
func (d *Driver) LibraryGlobal(ctx rt.CtxHandle, h rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	return d.variable(ctx, h, name, false)
}

// LibraryManaged is cuLibraryGetManaged: one address for every context. On
// the legacy path each context's module has its own copy of the variable, so
// the address is per context there.
func (d *Driver) LibraryManaged(ctx rt.CtxHandle, h rt.LibHandle, name string) (rt.DevPtr, uint64, error) {
	return d.variable(ctx, h, name, true)
}

func (d *Driver) variable(ctx rt.CtxHandle, h rt.LibHandle, name string, managed bool) (rt.DevPtr, uint64, error) {
	op := "cuLibraryGetGlobal"
	if managed {
		op = "cuLibraryGetManaged"
	}
	l, err := d.library(h, op)
	if err != nil {
		return 0, 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return 0, 0, rt.Errorf(op, rt.ErrInvalidHandle, "library %d is unloaded", h)
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var p C.CUdeviceptr
	var n C.size_t
	var rc C.int
	switch {
	case l.legacy:
		op = "cuModuleGetGlobal"
		c := cctx(ctx)
		if c == nil {
			if c, err = currentCtx(op); err != nil {
				return 0, 0, err
			}
		}
		m, err := d.legacyModule(l, c)
		if err != nil {
			return 0, 0, err
		}
		rc = C.cg_module_global(c, m.mod, cname, &p, &n)
	case managed:
		rc = C.cg_library_managed(cctx(ctx), l.lib, cname, &p, &n)
	default:
		rc = C.cg_library_global(cctx(ctx), l.lib, cname, &p, &n)
	}
	if rc != 0 {
		return 0, 0, checkd(op, rc, "variable "+name)
	}
	return rt.DevPtr(p), uint64(n), nil
}

// currentCtx is the calling thread's current context, or an error naming op
// if there is none.
func currentCtx(op string) (C.CUcontext, error) {
	var c C.CUcontext
	if rc := C.cg_ctx_get_current(&c); rc != 0 {
		return nil, check("cuCtxGetCurrent", rc)
	}
	if c == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidContext,
			"no context given and none is current on this OS thread (legacy module path)")
	}
	return c, nil
}

// legacyModule returns l's module in ctx, loading it on first use there.
// l.mu must be held.
func (d *Driver) legacyModule(l *library, ctx C.CUcontext) (*ctxModule, error) {
	if m := l.mods[ctx]; m != nil {
		return m, nil
	}
	var mod C.CUmodule
	if rc := C.cg_module_load(ctx, &mod, l.image, &l.jit, l.info, l.log, jitLogSize); rc != 0 {
		return nil, l.withLog(check("cuModuleLoadDataEx", rc))
	}
	var dev C.int
	if rc := C.cg_ctx_device(ctx, &dev); rc != 0 {
		C.cg_module_unload(ctx, mod)
		return nil, check("cuCtxGetDevice", rc)
	}
	m := &ctxModule{mod: mod, dev: int(dev), fns: map[string]C.CUfunction{}}
	l.mods[ctx] = m
	return m, nil
}

// legacyFunc returns k's CUfunction in ctx, loading the module and looking
// the function up on first use there. l.mu must be held.
func (d *Driver) legacyFunc(l *library, k *kernel, ctx C.CUcontext) (C.CUfunction, error) {
	m, err := d.legacyModule(l, ctx)
	if err != nil {
		return nil, err
	}
	if f, ok := m.fns[k.name]; ok {
		return f, nil
	}
	cname := C.CString(k.name)
	var f C.CUfunction
	rc := C.cg_module_function(ctx, m.mod, cname, &f)
	C.free(unsafe.Pointer(cname))
	if rc != 0 {
		return nil, checkd("cuModuleGetFunction", rc, "kernel "+k.name)
	}
	for attr, v := range k.attrs[m.dev] {
		if rc := C.cg_func_set_attribute(ctx, f, C.int(attr), C.int(v)); rc != 0 {
			return nil, checkd("cuFuncSetAttribute", rc, fmt.Sprintf("kernel %s, attribute %d", k.name, attr))
		}
	}
	m.fns[k.name] = f
	return f, nil
}

// dropContext forgets the legacy modules of ctx. With unload, they are
// unloaded first (the context is still alive: a primary context about to be
// released); without, the context was destroyed and took them along.
func (d *Driver) dropContext(ctx C.CUcontext, unload bool) {
	for _, l := range d.libs.all() {
		if !l.legacy {
			continue
		}
		l.mu.Lock()
		if m := l.mods[ctx]; m != nil {
			if unload {
				C.cg_module_unload(ctx, m.mod)
			}
			delete(l.mods, ctx)
		}
		l.mu.Unlock()
	}
}
