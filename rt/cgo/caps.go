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
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// rt's optional capabilities, all of them.
var (
	_ rt.Driver           = (*Driver)(nil)
	_ rt.ParamInfoer      = (*Driver)(nil)
	_ rt.KernelAttributer = (*Driver)(nil)
	_ rt.JITLogger        = (*Driver)(nil)
	_ rt.WarmUpper        = (*Driver)(nil)
	_ rt.LoadingModer     = (*Driver)(nil)
	_ rt.Linker           = (*Driver)(nil)
)

func (d *Driver) kernel(h rt.KernelHandle, op string) (*kernel, error) {
	k := d.kernels.get(uintptr(h))
	if k == nil {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "unknown KernelHandle %d", h)
	}
	if k.dead.Load() {
		return nil, rt.Errorf(op, rt.ErrInvalidHandle, "kernel %s: its library was unloaded", k.name)
	}
	return k, nil
}

// LoadingMode is cuModuleGetLoadingMode (CUDA 11.7+): true for lazy loading.
func (d *Driver) LoadingMode() (bool, error) {
	var mode C.int
	if rc := C.cg_loading_mode(&mode); rc != 0 {
		return false, check("cuModuleGetLoadingMode", rc)
	}
	return mode == 2, nil // CU_MODULE_LAZY_LOADING; CU_MODULE_EAGER_LOADING is 1
}

// WarmUp loads every kernel of the library into ctx now. On the
// context-independent path that is cuLibraryGetModule plus cuKernelGetFunction
// per kernel; on the legacy path, the context's module and a
// cuModuleGetFunction per kernel.
func (d *Driver) WarmUp(h rt.LibHandle, ctx rt.CtxHandle) error {
	l, err := d.library(h, "cuLibraryGetModule")
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unloaded {
		return rt.Errorf("cuLibraryGetModule", rt.ErrInvalidHandle, "library %d is unloaded", h)
	}
	if !l.legacy {
		var n C.uint
		return l.withLog(check("cuKernelGetFunction", C.cg_library_warmup(cctx(ctx), l.lib, &n)))
	}
	c := cctx(ctx)
	if c == nil {
		if c, err = currentCtx("cuModuleLoadDataEx"); err != nil {
			return err
		}
	}
	m, err := d.legacyModule(l, c)
	if err != nil {
		return err
	}
	names, err := legacyNames(c, m)
	if err != nil { // a driver older than 12.4: warm the kernels asked for so far
		names = names[:0]
		for name := range l.kernels {
			names = append(names, name)
		}
	}
	for _, name := range names {
		k := &kernel{lib: l, name: name}
		if kh, ok := l.kernels[name]; ok {
			k = d.kernels.get(uintptr(kh))
		}
		if _, err := d.legacyFunc(l, k, c); err != nil {
			return err
		}
	}
	return nil
}

// KernelAttribute is cuKernelGetAttribute on device dev. On the legacy path
// it is cuFuncGetAttribute on the kernel's function in a context of dev that
// has it loaded (launch or WarmUp it there first).
func (d *Driver) KernelAttribute(h rt.KernelHandle, attr rt.FuncAttr, dev int) (int, error) {
	k, err := d.kernel(h, "cuKernelGetAttribute")
	if err != nil {
		return 0, err
	}
	detail := fmt.Sprintf("kernel %s, attribute %d, device %d", k.name, attr, dev)
	var v C.int
	if !k.lib.legacy {
		if rc := C.cg_kernel_get_attribute(k.k, C.int(attr), C.int(dev), &v); rc != 0 {
			return 0, checkd("cuKernelGetAttribute", rc, detail)
		}
		return int(v), nil
	}
	l := k.lib
	l.mu.Lock()
	defer l.mu.Unlock()
	for ctx, m := range l.mods {
		if m.dev != dev {
			continue
		}
		f, err := d.legacyFunc(l, k, ctx)
		if err != nil {
			return 0, err
		}
		if rc := C.cg_func_get_attribute(ctx, f, C.int(attr), &v); rc != 0 {
			return 0, checkd("cuFuncGetAttribute", rc, detail)
		}
		return int(v), nil
	}
	return 0, rt.Errorf("cuFuncGetAttribute", rt.ErrNotSupported,
		"%s: legacy library not loaded in any context of device %d yet (launch or WarmUp it there first)", detail, dev)
}

// SetKernelAttribute is cuKernelSetAttribute on device dev. On the legacy
// path it sets the attribute on the kernel's function in every context of
// dev it is loaded in, and on its later loads there.
func (d *Driver) SetKernelAttribute(h rt.KernelHandle, attr rt.FuncAttr, value int, dev int) error {
	k, err := d.kernel(h, "cuKernelSetAttribute")
	if err != nil {
		return err
	}
	detail := fmt.Sprintf("kernel %s, attribute %d = %d, device %d", k.name, attr, value, dev)
	if !k.lib.legacy {
		return checkd("cuKernelSetAttribute", C.cg_kernel_set_attribute(k.k, C.int(attr), C.int(value), C.int(dev)), detail)
	}
	l := k.lib
	l.mu.Lock()
	defer l.mu.Unlock()
	for ctx, m := range l.mods {
		if m.dev != dev {
			continue
		}
		f, err := d.legacyFunc(l, k, ctx)
		if err != nil {
			return err
		}
		if rc := C.cg_func_set_attribute(ctx, f, C.int(attr), C.int(value)); rc != 0 {
			return checkd("cuFuncSetAttribute", rc, detail)
		}
	}
	if k.attrs == nil {
		k.attrs = map[int]map[rt.FuncAttr]int{}
	}
	if k.attrs[dev] == nil {
		k.attrs[dev] = map[rt.FuncAttr]int{}
	}
	k.attrs[dev][attr] = value
	return nil
}

// KernelParamInfo reports the kernel's parameter layout as the compiled
// kernel reads it (cuKernelGetParamInfo, CUDA 12.4+; cuFuncGetParamInfo on
// the legacy path): rt checks a generated layout against it when it binds
// the kernel. The driver answers only with a context current, so the query
// runs in the calling thread's current context or any context this Driver
// retained or created. Without the entry point, or with no context yet, it
// returns an error (rt.ErrNotSupported, rt.ErrInvalidContext).
func (d *Driver) KernelParamInfo(h rt.KernelHandle) ([]rt.ParamSpec, error) {
	k, err := d.kernel(h, "cuKernelGetParamInfo")
	if err != nil {
		return nil, err
	}
	if !k.lib.legacy {
		return paramSpecs("cuKernelGetParamInfo", k, d.someCtx(), k.k, nil)
	}
	l := k.lib
	l.mu.Lock()
	defer l.mu.Unlock()
	for ctx := range l.mods {
		f, err := d.legacyFunc(l, k, ctx)
		if err != nil {
			return nil, err
		}
		return paramSpecs("cuFuncGetParamInfo", k, ctx, nil, f)
	}
	if ctx := d.someCtx(); ctx != nil {
		f, err := d.legacyFunc(l, k, ctx)
		if err != nil {
			return nil, err
		}
		return paramSpecs("cuFuncGetParamInfo", k, ctx, nil, f)
	}
	return nil, rt.Errorf("cuFuncGetParamInfo", rt.ErrInvalidContext,
		"kernel %s: legacy module path and no context to load it in yet", k.name)
}

func paramSpecs(op string, k *kernel, ctx C.CUcontext, ck C.CUkernel, f C.CUfunction) ([]rt.ParamSpec, error) {
	specs := []rt.ParamSpec{}
	for i := 0; ; i++ {
		var off, size C.size_t
		rc := C.cg_param_info(ctx, ck, f, C.size_t(i), &off, &size)
		if rc == C.int(rt.ErrInvalidValue) {
			return specs, nil // past the last parameter
		}
		if rc != 0 {
			return nil, checkd(op, rc, fmt.Sprintf("kernel %s, parameter %d", k.name, i))
		}
		specs = append(specs, rt.ParamSpec{Offset: uint32(off), Size: uint32(size)})
	}
}

// hasParamInfo reports whether the driver can report parameter layouts.
func (d *Driver) hasParamInfo() bool { return C.cg_has(C.CG_SYM_KERNEL_PARAM_INFO) != 0 }

// linkLogSize is the size of each of the linker's info and error logs.
const linkLogSize = 64 << 10

// Link JIT-links relocatable device code (cuLinkCreate, cuLinkAddData per
// input, cuLinkComplete) and returns the cubin with the linker's info log.
// PTX inputs are compiled as relocatable code, so a PTX file that calls an
// .extern .func links against the input that defines it.
func (d *Driver) Link(inputs []rt.LinkInput, opts rt.LinkOptions) ([]byte, string, error) {
	if len(inputs) == 0 {
		return nil, "", rt.Errorf("cuLinkAddData", rt.ErrInvalidValue, "no inputs")
	}
	o := jitOpts(linkJIT(opts), opts.Target)
	ctx := cctx(opts.Ctx)
	var l *C.cg_link
	if rc := C.cg_link_create(ctx, &o, linkLogSize, &l); rc != 0 {
		return nil, "", check("cuLinkCreate", rc)
	}
	defer C.cg_link_destroy(l)
	logs := func() (string, string) {
		return C.GoString(C.cg_link_info_log(l)), C.GoString(C.cg_link_error_log(l))
	}
	fail := func(err error) ([]byte, string, error) {
		info, errlog := logs()
		if e, ok := err.(*rt.Error); ok {
			if errlog != "" {
				e.Detail = join(e.Detail, "linker error log: "+errlog)
			}
			if info != "" {
				e.Detail = join(e.Detail, "linker info log: "+info)
			}
		}
		return nil, info, err
	}
	var keep []unsafe.Pointer // C copies of the inputs, freed after cuLinkDestroy
	defer func() {
		for _, p := range keep {
			C.free(p)
		}
	}()
	for i, in := range inputs {
		n := len(in.Data)
		if n == 0 {
			return fail(rt.Errorf("cuLinkAddData", rt.ErrInvalidValue, "input %d (%s) is empty", i, in.Name))
		}
		// PTX must be NUL-terminated; the size passed includes the NUL.
		data := C.malloc(C.size_t(n + 1))
		keep = append(keep, data)
		C.memcpy(data, unsafe.Pointer(&in.Data[0]), C.size_t(n))
		*(*byte)(unsafe.Add(data, n)) = 0
		if in.Kind == rt.LinkPTX && in.Data[n-1] != 0 {
			n++
		}
		name := C.CString(in.Name)
		keep = append(keep, unsafe.Pointer(name))
		if rc := C.cg_link_add(ctx, l, C.int(in.Kind), data, C.size_t(n), name); rc != 0 {
			return fail(checkd("cuLinkAddData", rc, fmt.Sprintf("input %d (%s)", i, in.Name)))
		}
	}
	var cubin unsafe.Pointer
	var size C.size_t
	if rc := C.cg_link_complete(ctx, l, &cubin, &size); rc != 0 {
		return fail(check("cuLinkComplete", rc))
	}
	// The cubin belongs to the link state: copy it out before cuLinkDestroy.
	image := C.GoBytes(cubin, C.int(size))
	info, _ := logs()
	return image, info, nil
}
