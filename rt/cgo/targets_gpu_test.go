//go:build cgo

package cgo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt"
)

// TestImageChoiceGPU checks the driver's choice of image from fatbins that
// parse.Combine builds from per-target files, as cugen does for a target
// set: the newest PTX the device can take, and a cubin for the device's
// architecture over any PTX. It prints IMAGE-CHOICE-GPU lines.
func TestImageChoiceGPU(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	major, minor, err := ctx.Device().ComputeCapability()
	must(t, err)
	cc := 10*major + minor

	t.Run("per-target PTX", func(t *testing.T) {
		m := combine(t, "testdata/targets/madd3_50.ptx", "testdata/targets/madd3_70.ptx", "testdata/targets/madd3_80.ptx")
		fb, err := fatbin.Parse(m.Image)
		must(t, err)
		want := fatbin.Select(fb.Entries, cc)
		if want == nil {
			t.Skipf("sm_%d takes none of compute_50, compute_70, compute_80", cc)
		}
		ka := attributes(t, ctx, m, "madd3", rt.LoadOptions{})
		fmt.Printf("IMAGE-CHOICE-GPU: sm_%d loads madd3 from a fatbin of compute_50/70/80 PTX: PTX version %d, binary version %d (want %d, %d)\n",
			cc, ka.PTXVersion, ka.BinaryVersion, want.Arch, cc)
		if ka.PTXVersion != int(want.Arch) || ka.BinaryVersion != cc {
			t.Errorf("the driver runs compute_%d PTX as sm_%d, want compute_%d as sm_%d", ka.PTXVersion, ka.BinaryVersion, want.Arch, cc)
		}
	})

	t.Run("cubin over PTX", func(t *testing.T) {
		if cc != 90 {
			t.Skipf("the committed cubin is sm_90's; the device is sm_%d", cc)
		}
		// k.cu built by nvcc 13 as an sm_90 cubin and compute_90 PTX.
		both := combine(t, "testdata/targets/k90.cubin", "testdata/targets/k.ptx")
		ptx := combine(t, "testdata/targets/k.ptx")
		verbose := rt.LoadOptions{JIT: rt.JITOptions{Verbose: true}}
		logBoth := jitLog(t, ctx, both, verbose)
		logPTX := jitLog(t, ctx, ptx, verbose)
		t.Logf("JIT log of the cubin + PTX fatbin: %q\nJIT log of the PTX alone: %q", logBoth, logPTX)
		if !strings.Contains(logPTX, "ptxas") {
			t.Skip("the driver's verbose JIT log of the PTX alone mentions no ptxas: the logs cannot tell the images apart")
		}
		fmt.Printf("IMAGE-CHOICE-GPU: sm_%d loads k.cu's sm_90 cubin over its compute_90 PTX: JIT log %d bytes (PTX alone: %d bytes)\n", cc, len(logBoth), len(logPTX))
		if strings.Contains(logBoth, "ptxas") {
			t.Errorf("the driver compiled the PTX of a fatbin that holds an sm_90 cubin")
		}
	})

	t.Run("cubin from an older virtual arch", func(t *testing.T) {
		nvcc, err := exec.LookPath("nvcc")
		if err != nil {
			t.Skip("needs nvcc on PATH, to build a cubin for this device")
		}
		dir := t.TempDir()
		cubin, ptx := filepath.Join(dir, "madd3.cubin"), filepath.Join(dir, "madd3_80.ptx")
		for _, args := range [][]string{
			{"-cubin", fmt.Sprintf("-gencode=arch=compute_75,code=sm_%d", cc), "-o", cubin, "testdata/targets/madd3.cu"},
			{"-ptx", "-arch=compute_80", "-o", ptx, "testdata/targets/madd3.cu"},
		} {
			if out, err := exec.Command(nvcc, args...).CombinedOutput(); err != nil {
				t.Fatalf("nvcc %v: %v\n%s", args, err, out)
			}
		}
		m := combine(t, cubin, ptx)
		ka := attributes(t, ctx, m, "madd3", rt.LoadOptions{})
		fmt.Printf("IMAGE-CHOICE-GPU: sm_%d loads madd3 from an sm_%d cubin of compute_75 beside compute_80 PTX: PTX version %d, binary version %d (H200: 80, %d)\n",
			cc, cc, ka.PTXVersion, ka.BinaryVersion, cc)
		// The H200 (driver 580.159.04, CUDA 13.0) JIT-compiles the newer
		// PTX here rather than load the sm_90 cubin built from compute_75:
		// PTX version 80, binary version 90. fatbin.Select does not model
		// that exception (its doc says so); this records what the driver does.
		if ka.PTXVersion != 80 || ka.BinaryVersion != cc {
			t.Errorf("PTX version %d, binary version %d: the driver no longer prefers the compute_80 PTX over an sm_%d cubin of compute_75 (seen on the H200)", ka.PTXVersion, ka.BinaryVersion, cc)
		}
	})
}

// combine reads the files into one model, as cugen does a target set (one
// file is just read).
func combine(t *testing.T, paths ...string) *parse.Module {
	t.Helper()
	var parts []parse.Part
	for _, p := range paths {
		data, err := os.ReadFile(p)
		must(t, err)
		m, err := parse.Read(p, data, parse.Options{})
		must(t, err)
		parts = append(parts, parse.Part{Name: p, Data: data, Module: m})
	}
	if len(parts) == 1 {
		return parts[0].Module
	}
	m, err := parse.Combine("set.fatbin", parts, parse.Options{})
	must(t, err)
	return m
}

// declare declares m's kernel name in lib with the model's layout.
func declare(lib *rt.Library, m *parse.Module, name string) *rt.Kernel {
	var specs []rt.ParamSpec
	for _, p := range m.Kernel(name).Params {
		specs = append(specs, rt.ParamSpec{Offset: uint32(p.Offset), Size: uint32(p.Size), Align: uint32(p.Align)})
	}
	return lib.Kernel(name, specs...)
}

// attributes loads m's image and reads kernel name's attributes in ctx.
func attributes(t *testing.T, ctx *rt.Context, m *parse.Module, name string, o rt.LoadOptions) rt.KernelAttributes {
	t.Helper()
	lib := rt.NewLibrary("set.fatbin", m.Image)
	must(t, lib.SetLoadOptions(o))
	defer lib.Unload(ctx.Driver())
	ka, err := declare(lib, m, name).Attributes(ctx.Device())
	must(t, err)
	return ka
}

// jitLog loads m's image, loads every kernel into ctx and returns the JIT
// log.
func jitLog(t *testing.T, ctx *rt.Context, m *parse.Module, o rt.LoadOptions) string {
	t.Helper()
	lib := rt.NewLibrary("set.fatbin", m.Image)
	must(t, lib.SetLoadOptions(o))
	defer lib.Unload(ctx.Driver())
	h, err := lib.Load(ctx.Driver())
	must(t, err)
	must(t, ctx.Driver().(rt.WarmUpper).WarmUp(h, ctx.Handle()))
	s, err := lib.JITLog(ctx.Driver())
	must(t, err)
	return s
}
