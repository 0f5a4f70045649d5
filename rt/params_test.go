package rt_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
)

// saxpyLayout is kernSaxpy's layout as a driver reports it.
var saxpyLayout = []rt.ParamSpec{{Offset: 0, Size: 4}, {Offset: 4, Size: 4}, {Offset: 8, Size: 8}, {Offset: 16, Size: 8}}

// bigParam(const __grid_constant__ Big64 b, u64* out), struct alignas(64)
// Big64, as cugen declares it (the PTX's layout) and as the H100 reads it.
var (
	bigPacked = []rt.ParamSpec{{Offset: 0, Size: 64, Align: 64}, {Offset: 64, Size: 8}}
	bigOnH100 = []rt.ParamSpec{{Offset: 48, Size: 64}, {Offset: 112, Size: 8}}
)

func placeFake(layouts map[string][]rt.ParamSpec) *rttest.Fake {
	return &rttest.Fake{Kernels: []string{"_Z5saxpyifPKfPf", "bigParam", "plain"}, ParamSpecs: layouts, Record: true}
}

// A kernel the device reads at other offsets than the packed ones, with the
// same count and sizes, is placed by the backend; one it reads as packed is
// not, and takes the ordinary path.
func TestPlacedWhereOffsetsDiffer(t *testing.T) {
	f := placeFake(map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": saxpyLayout, "bigParam": bigOnH100})
	l := rt.NewLibrary("field.ptx", nil)
	big := l.Kernel("bigParam", bigPacked...)
	sax := l.Kernel("_Z5saxpyifPKfPf", saxpyLayout...)
	s := primary(t, f).NullStream()
	var p [72]byte
	p[0], p[64] = 0xb0, 0x64
	if err := big.Launch(rt.Config{Stream: s}, p[:]); err != nil {
		t.Fatal(err)
	}
	if got := f.Placed["bigParam"]; !slices.Equal(got, bigPacked) {
		t.Errorf("PlaceParams got %v, want the packed layout %v", got, bigPacked)
	}
	dev, err := big.DriverParams(f)
	if placed, perr := big.Placed(f); err != nil || perr != nil || !placed || !slices.Equal(dev, bigOnH100) {
		t.Errorf("DriverParams = %v, %v; Placed = %v, %v; want %v, placed", dev, err, placed, perr, bigOnH100)
	}
	// The backend gets the buffer as packed: placing is its job.
	if n := len(f.Launches); n != 1 || len(f.Launches[0].Params) != 72 || f.Launches[0].Params[0] != 0xb0 || f.Launches[0].Params[64] != 0x64 {
		t.Errorf("launches %+v", f.Launches)
	}
	var q [24]byte
	if err := sax.Launch(rt.Config{Stream: s}, q[:]); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Placed["_Z5saxpyifPKfPf"]; ok {
		t.Error("a kernel read as packed was placed")
	}
	if placed, _ := sax.Placed(f); placed {
		t.Error("saxpy, read as packed, is placed")
	}
}

// A driver that cannot report layouts (CUDA before 12.4) places the kernels
// with a parameter aligned above 16 bytes, and only those.
func TestPlacedWhereOverAlignedAndUnknown(t *testing.T) {
	f := placeFake(nil) // KernelParamInfo: not supported
	l := rt.NewLibrary("field.ptx", nil)
	big := l.Kernel("bigParam", bigPacked...)
	// 16-byte alignment (float4, double2) is the bank's own: nothing moves.
	plain := l.Kernel("plain", rt.ParamSpec{Offset: 0, Size: 16, Align: 16}, rt.ParamSpec{Offset: 16, Size: 8})
	s := primary(t, f).NullStream()
	if err := big.Launch(rt.Config{Stream: s}, make([]byte, 72)); err != nil {
		t.Fatal(err)
	}
	if err := plain.Launch(rt.Config{Stream: s}, make([]byte, 24)); err != nil {
		t.Fatal(err)
	}
	if placed, _ := big.Placed(f); !placed || !slices.Equal(f.Placed["bigParam"], bigPacked) {
		t.Errorf("over-aligned kernel with no layout to compare: placed %v, PlaceParams %v", placed, f.Placed)
	}
	if placed, _ := plain.Placed(f); placed {
		t.Error("16-aligned kernel with no layout to compare is placed")
	}
}

// noPlacer is a driver that reports layouts but cannot place parameters.
type noPlacer struct {
	rt.Driver
	rt.ParamInfoer
}

// A kernel that needs placing on a backend that cannot place fails, naming
// both layouts; the library's other kernels launch.
func TestPlacementUnsupportedFailsThatKernel(t *testing.T) {
	f := placeFake(map[string][]rt.ParamSpec{"_Z5saxpyifPKfPf": saxpyLayout, "bigParam": bigOnH100})
	d := noPlacer{f, f}
	l := rt.NewLibrary("field.ptx", nil)
	big := l.Kernel("bigParam", bigPacked...)
	sax := l.Kernel("_Z5saxpyifPKfPf", saxpyLayout...)
	s := primary(t, d).NullStream()
	err := big.Launch(rt.Config{Stream: s}, make([]byte, 72))
	if !errors.Is(err, rt.ErrNotSupported) || !strings.Contains(err.Error(), "reads its parameters at 48:64 112:8, the generated code packs them at 0:64 64:8") {
		t.Errorf("err = %v", err)
	}
	if err := sax.Launch(rt.Config{Stream: s}, make([]byte, 24)); err != nil {
		t.Errorf("the library's other kernel: %v", err)
	}
	if f.LaunchCount() != 1 {
		t.Errorf("%d launches, want saxpy's alone", f.LaunchCount())
	}
}

// A placed kernel's launches allocate nothing, as every launch.
func TestPlacedLaunchAllocs(t *testing.T) {
	f := placeFake(map[string][]rt.ParamSpec{"bigParam": bigOnH100})
	f.Record = false
	l := rt.NewLibrary("field.ptx", nil)
	big := l.Kernel("bigParam", bigPacked...)
	s, err := primary(t, f).NewStream()
	if err != nil {
		t.Fatal(err)
	}
	cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
	launch := func() {
		var p [72]byte
		if err := big.Launch(cfg, p[:]); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	if n := testing.AllocsPerRun(100, launch); n != 0 {
		t.Errorf("a placed launch allocates %v times", n)
	}
}
