package rttest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

func (s *suite) library(t *testing.T) {
	d := s.d
	h, err := s.lib.Load(d)
	must(t, err)
	if again, err := s.lib.Load(d); err != nil || again != h {
		t.Errorf("a second Load gave %v, %v; want the first load's handle %v", again, err, h)
	}
	s.withLookups(t, func() {
		names, err := d.LibraryKernelNames(h)
		if err != nil {
			t.Errorf("LibraryKernelNames: %v", err)
		} else if got := sorted(names); fmt.Sprint(got) != fmt.Sprint(suiteKernels) {
			t.Errorf("LibraryKernelNames = %v, want %v", got, suiteKernels)
		}
		k1, err1 := d.LibraryKernel(h, "vecAdd")
		k2, err2 := d.LibraryKernel(h, "vecAdd")
		if err1 != nil || err2 != nil || k1 != k2 || k1 == 0 {
			t.Errorf("two lookups of vecAdd: %v (%v) and %v (%v), want one handle", k1, err1, k2, err2)
		}
		_, err = d.LibraryKernel(h, "noSuchKernel")
		wantCode(t, "LibraryKernel of a kernel the image lacks", err, rt.ErrNotFound)
	})
	_, _, err = d.LibraryGlobal(s.a.Handle(), h, "noSuchVariable")
	wantCode(t, "LibraryGlobal of a variable the image lacks", err, rt.ErrNotFound)

	// A generated package older than its image: the kernel it declares is
	// missing. The load fails naming it and what the image has, or, where
	// the kernel list needs a context, the kernel's first launch does.
	stale := rt.NewLibrary("suite.ptx", suitePTX)
	old := stale.Kernel("vecAddOld", rt.ParamSpec{Offset: 0, Size: 8})
	_, err = stale.Load(d)
	if err == nil && s.opts.PerContextModules {
		var p [8]byte
		err = old.Launch(rt.Config{Stream: s.a.NullStream()}, p[:])
	}
	wantCode(t, "a declared kernel the image lacks", err, rt.ErrNotFound)
	if err == nil || !strings.Contains(err.Error(), "vecAddOld") {
		t.Errorf("the error does not name the missing kernel: %v", err)
	}
	if !s.opts.PerContextModules && (err == nil || !strings.Contains(err.Error(), "vecAdd,") && !strings.Contains(err.Error(), ", vecAdd")) {
		t.Errorf("the error does not list the image's kernels: %v", err)
	}
	stale.Unload(d)

	// Broken PTX fails at load, or, where the driver compiles lazily, at
	// the kernel's first use.
	bad := []byte(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry bad()\n{\n\tbogus.instruction %r1;\n\tret;\n}\n")
	badLib, err := d.LibraryLoad(bad, rt.LoadOptions{Name: "bad.ptx"})
	if err == nil {
		var k rt.KernelHandle
		if k, err = d.LibraryKernel(badLib, "bad"); err == nil {
			err = d.Launch(k, rt.LaunchArgs{Ctx: s.a.Handle(), Grid: rt.D1(1), Block: rt.D1(1)})
		}
		d.LibraryUnload(badLib)
	}
	t.Logf("broken PTX: %v", err)
	if c := rt.CodeOf(err); c != rt.ErrInvalidPTX && c != rt.ErrInvalidImage {
		t.Errorf("broken PTX: %v, want CUDA_ERROR_INVALID_PTX (or _INVALID_IMAGE)", err)
	}

	// After an unload the library's handles are dead.
	lib2, err := d.LibraryLoad(suitePTX, rt.LoadOptions{Name: "suite.ptx"})
	must(t, err)
	var k rt.KernelHandle
	s.withLookups(t, func() { k, err = d.LibraryKernel(lib2, "empty") })
	must(t, err)
	must(t, d.Launch(k, rt.LaunchArgs{Ctx: s.a.Handle(), Grid: rt.D1(1), Block: rt.D1(1)}))
	must(t, s.a.Synchronize())
	must(t, d.LibraryUnload(lib2))
	wantCode(t, "a launch of a kernel of an unloaded library",
		d.Launch(k, rt.LaunchArgs{Ctx: s.a.Handle(), Grid: rt.D1(1), Block: rt.D1(1)}), rt.ErrInvalidHandle)
	wantCode(t, "a second LibraryUnload", d.LibraryUnload(lib2), rt.ErrInvalidHandle)
	_, err = d.LibraryKernel(lib2, "empty")
	wantCode(t, "LibraryKernel of an unloaded library", err, rt.ErrInvalidHandle)
	wantCode(t, "a launch with a kernel handle never handed out",
		d.Launch(rt.KernelHandle(1<<40), rt.LaunchArgs{Ctx: s.a.Handle(), Grid: rt.D1(1), Block: rt.D1(1)}), rt.ErrInvalidHandle)

	// An rt.Library unloaded from a driver loads again at its next use.
	again := rt.NewLibrary("suite.ptx", suitePTX)
	empty := again.Kernel("empty")
	cfg := rt.Config{Stream: s.a.NullStream()}
	must(t, empty.Launch(cfg, nil))
	must(t, again.Unload(d))
	must(t, empty.Launch(cfg, nil))
	must(t, s.a.Synchronize())
	// A JIT log where the driver keeps one.
	log, err := again.JITLog(d)
	if _, ok := d.(rt.JITLogger); ok {
		must(t, err)
		t.Logf("JIT log of suite.ptx: %d bytes", len(log))
	} else {
		wantCode(t, "JITLog on a driver without JIT logs", err, rt.ErrNotSupported)
	}
	must(t, again.Unload(d))
}

// globals: a __device__ variable has an address and a value per context;
// a __managed__ one is shared by every context.
func (s *suite) globals(t *testing.T) {
	pa, err := s.scale.Ptr(s.a)
	must(t, err)
	pb, err := s.scale.Ptr(s.b)
	must(t, err)
	t.Logf("scale: %v in A, %v in B", pa, pb)
	if pa == pb {
		t.Errorf("__device__ scale has address %v in both contexts", pa)
	}
	for _, c := range []*rt.Context{s.a, s.b} {
		if v, err := s.scale.Get(c); err != nil || v != 2.5 {
			t.Errorf("scale in %v = %v (%v), want its initializer 2.5", c, v, err)
		}
	}
	const n = 1000
	runScale := func(ctx *rt.Context) []float32 {
		t.Helper()
		in, err := rt.AllocFrom(ctx, iota32(n))
		must(t, err)
		defer in.Free()
		out, err := rt.Alloc[float32](ctx, n)
		must(t, err)
		defer out.Free()
		// On the context's NULL stream: a launch in that context, with
		// the context given rather than a stream.
		must(t, s.runScaleBy(rt.Linear(n, 256).On(ctx.NullStream()), out.Ptr, in.Const(), n))
		got, err := out.ToHost()
		must(t, err)
		return got
	}
	checkScaled := func(ctx *rt.Context, want float32) {
		t.Helper()
		for i, v := range runScale(ctx) {
			if v != float32(i)*want {
				t.Fatalf("scaleBy in %v: out[%d] = %v, want %v×%v", ctx, i, v, i, want)
			}
		}
	}
	must(t, s.scale.Set(s.b, 3))
	checkScaled(s.b, 3)
	checkScaled(s.a, 2.5) // A's copy is untouched
	must(t, s.scale.Write(s.b, []float32{2.5}))
	got := make([]float32, 1)
	must(t, s.scale.Read(s.b, got))
	if got[0] != 2.5 {
		t.Errorf("scale in B reads %v after writing 2.5", got[0])
	}
	wantCode(t, "reading 2 elements of a 1-element variable", s.scale.Read(s.a, make([]float32, 2)), rt.ErrInvalidValue)
	wrong := rt.NewGlobal[float64](s.lib, "scale", 1)
	if _, err := wrong.Ptr(s.a); err == nil || !strings.Contains(err.Error(), "is 4 bytes in the image, 8 in the generated code") {
		t.Errorf("an 8-byte accessor of the 4-byte scale: %v", err)
	}

	ma, err := s.total.Ptr(s.a)
	must(t, err)
	mb, err := s.total.Ptr(s.b)
	must(t, err)
	t.Logf("managedTotal: %v in A, %v in B", ma, mb)
	beforeA, err := s.total.Get(s.a)
	must(t, err)
	beforeB, err := s.total.Get(s.b)
	must(t, err)
	must(t, s.runAddManaged(rt.Config{Stream: s.a.NullStream()}, 5))
	must(t, s.a.Synchronize())
	must(t, s.runAddManaged(rt.Config{Stream: s.b.NullStream()}, 7))
	must(t, s.b.Synchronize())
	afterA, err := s.total.Get(s.a)
	must(t, err)
	afterB, err := s.total.Get(s.b)
	must(t, err)
	if s.opts.PerContextModules {
		// Each context's module has its own copy.
		if ma == mb || afterA != beforeA+5 || afterB != beforeB+7 {
			t.Errorf("per-context modules: managedTotal at %v and %v went %d→%d and %d→%d; want two copies, +5 and +7", ma, mb, beforeA, afterA, beforeB, afterB)
		}
	} else if ma != mb || beforeA != beforeB || afterA != beforeA+12 || afterB != afterA {
		t.Errorf("managedTotal at %v in A and %v in B went %d→%d and %d→%d; want one variable, +12", ma, mb, beforeA, afterA, beforeB, afterB)
	}

	if len(s.devs) > 1 {
		c1, err := s.devs[1].Primary()
		must(t, err)
		defer c1.Release()
		p1, err := s.scale.Ptr(c1)
		must(t, err)
		v, err := s.scale.Get(c1)
		must(t, err)
		if p1 == pa || p1 == pb || v != 2.5 {
			t.Errorf("scale on device 1 at %v = %v; want an address of its own and the initializer 2.5", p1, v)
		}
		checkScaled(c1, 2.5)
	}
}
