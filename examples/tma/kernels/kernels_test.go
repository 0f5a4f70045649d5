package kernels_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/examples/tma/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tensormap"
)

// These tests run on the default backend: the GPU where rt/cgo finds one
// (CUGEN_BACKEND=cuda insists on it), rt/soft otherwise. On the GPU every
// image runs; rt/soft runs PTX only (tmaTile's mbarrier and
// cp.async.bulk.tensor included): the cubin skips there, saying why.

// image is one library of the package and its kernels.
type image struct {
	lib           *rt.Library
	bigParam      func(rt.Config, kernels.Big64, rt.Ptr[uint64]) error
	bigAfterPtr   func(rt.Config, rt.Ptr[uint64], kernels.Big128, int32) error
	bigByValue    func(rt.Config, int8, kernels.Big64, rt.Ptr[uint64], int16) error
	plainAfterBig func(rt.Config, kernels.Big64, float32, rt.Ptr[uint64]) error
	tmaTile       func(rt.Config, rt.TensorMap, rt.Ptr[float32], int32, int32) error // nil: compiled empty
}

var images = []image{
	{kernels.Field11Sm80Library, kernels.Field11Sm80BigParam, kernels.Field11Sm80BigAfterPtr, kernels.Field11Sm80BigByValue, kernels.Field11Sm80PlainAfterBig, nil},
	{kernels.Field11Sm90PtxLibrary, kernels.Field11Sm90PtxBigParam, kernels.Field11Sm90PtxBigAfterPtr, kernels.Field11Sm90PtxBigByValue, kernels.Field11Sm90PtxPlainAfterBig, kernels.Field11Sm90PtxTmaTile},
	{kernels.Field11Sm90CubinLibrary, kernels.Field11Sm90CubinBigParam, kernels.Field11Sm90CubinBigAfterPtr, kernels.Field11Sm90CubinBigByValue, kernels.Field11Sm90CubinPlainAfterBig, kernels.Field11Sm90CubinTmaTile},
	{kernels.Field11NoneLibrary, kernels.Field11NoneBigParam, kernels.Field11NoneBigAfterPtr, kernels.Field11NoneBigByValue, kernels.Field11NonePlainAfterBig, kernels.Field11NoneTmaTile},
	{kernels.Field11SpeedLibrary, kernels.Field11SpeedBigParam, kernels.Field11SpeedBigAfterPtr, kernels.Field11SpeedBigByValue, kernels.Field11SpeedPlainAfterBig, kernels.Field11SpeedTmaTile},
	{kernels.Field11SizeLibrary, kernels.Field11SizeBigParam, kernels.Field11SizeBigAfterPtr, kernels.Field11SizeBigByValue, kernels.Field11SizePlainAfterBig, kernels.Field11SizeTmaTile},
	{kernels.Field11Library, kernels.Field11BigParam, kernels.Field11BigAfterPtr, kernels.Field11BigByValue, kernels.Field11PlainAfterBig, kernels.Field11TmaTile},
}

// spy is a driver that records the layouts the loaded kernels report and
// which kernels rt has placed. With reports off it reports none, as a
// driver before CUDA 12.4 does, and rt places by the declared alignments.
type spy struct {
	rt.Driver
	reports bool

	mu      sync.Mutex
	names   map[rt.KernelHandle]string
	layouts map[string]string
	placed  map[string]bool
}

func newSpy(d rt.Driver, reports bool) *spy {
	return &spy{Driver: d, reports: reports, names: map[rt.KernelHandle]string{}, layouts: map[string]string{}, placed: map[string]bool{}}
}

func (s *spy) LibraryKernel(lib rt.LibHandle, name string) (rt.KernelHandle, error) {
	h, err := s.Driver.LibraryKernel(lib, name)
	s.mu.Lock()
	s.names[h] = name
	s.mu.Unlock()
	return h, err
}

func (s *spy) KernelParamInfo(h rt.KernelHandle) ([]rt.ParamSpec, error) {
	pi, ok := s.Driver.(rt.ParamInfoer)
	if !s.reports || !ok {
		return nil, rt.Errorf("cuKernelGetParamInfo", rt.ErrNotSupported, "reports are off")
	}
	got, err := pi.KernelParamInfo(h)
	if err == nil {
		var b strings.Builder
		for i, p := range got {
			fmt.Fprintf(&b, "%s%d:%d", map[bool]string{true: " "}[i > 0], p.Offset, p.Size)
		}
		s.mu.Lock()
		s.layouts[s.names[h]] = b.String()
		s.mu.Unlock()
	}
	return got, err
}

func (s *spy) PlaceParams(h rt.KernelHandle, packed []rt.ParamSpec) error {
	s.mu.Lock()
	s.placed[s.names[h]] = true
	s.mu.Unlock()
	return s.Driver.(rt.ParamPlacer).PlaceParams(h, packed)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// backend is the default driver.
func backend(t *testing.T) rt.Driver {
	d, err := rt.Default()
	must(t, err)
	return d
}

// load loads img in d, or skips on rt/soft where soft cannot load it.
func load(t *testing.T, d rt.Driver, img image, soft bool) {
	t.Helper()
	if _, err := img.lib.Load(d); err != nil {
		switch {
		case soft && errors.Is(err, rt.ErrNoBinaryForGPU):
			t.Skipf("rt/soft runs PTX only: %v", err)
		case soft && errors.Is(err, rt.ErrInvalidPTX) && strings.Contains(err.Error(), "not supported"):
			t.Skipf("rt/soft cannot run %s yet: %v", img.lib.Name(), err)
		}
		t.Fatal(err)
	}
}

func big64(seed uint64) kernels.Big64 {
	var b kernels.Big64
	for i := range b.V {
		b.V[i] = seed*uint64(i+1) + uint64(i)
	}
	return b
}

// TestOverAligned launches the four kernels with parameters aligned to 64
// and 128 bytes from every image, with the device's layouts reported and
// without (rt then places by the declared alignment), and checks every word
// they write. On the GPU it prints each kernel's layout as the loaded image
// reports it, and whether rt had it placed.
func TestOverAligned(t *testing.T) {
	d := backend(t)
	onSoft := d.Name() == "soft"
	for _, reports := range []bool{true, false} {
		for _, img := range images {
			t.Run(fmt.Sprintf("%s/reports=%v", img.lib.Name(), reports), func(t *testing.T) {
				sp := newSpy(d, reports)
				load(t, sp, img, onSoft)
				defer img.lib.Unload(sp)
				devs, err := rt.DevicesOf(sp)
				must(t, err)
				ctx, err := devs[0].Primary()
				must(t, err)
				defer ctx.Release()
				s, err := ctx.NewStream()
				must(t, err)
				defer s.Destroy()
				out, err := rt.Alloc[uint64](ctx, 16)
				must(t, err)
				defer out.Free()
				cfg := rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s}
				run := func(what string, launch func() error, want []uint64) {
					t.Helper()
					must(t, out.Zero())
					must(t, launch())
					must(t, s.Synchronize())
					got, err := out.ToHost()
					must(t, err)
					for i, w := range want {
						if got[i] != w {
							t.Errorf("%s: out[%d] = %#x, want %#x", what, i, got[i], w)
						}
					}
				}

				b := big64(0x0101010101010101)
				run("bigParam", func() error { return img.bigParam(cfg, b, out.Ptr) }, b.V[:])

				var c kernels.Big128
				for i := range c.V {
					c.V[i] = 1000 + uint64(i)<<40
				}
				want := slices.Clone(c.V[:])
				for i := range want {
					want[i] += 7
				}
				run("bigAfterPtr", func() error { return img.bigAfterPtr(cfg, out.Ptr, c, 7) }, want)

				// char -2 and short -3 convert to unsigned long long by sign
				// extension: out[i] = b[i]*(2^64-2) + 2^64-3.
				want = slices.Clone(b.V[:])
				for i := range want {
					want[i] = want[i]*uint64(math.MaxUint64-1) + uint64(math.MaxUint64-2)
				}
				run("bigByValue", func() error { return img.bigByValue(cfg, -2, b, out.Ptr, -3) }, want)

				want = slices.Clone(b.V[:])
				for i := range want {
					want[i] += 12
				}
				run("plainAfterBig", func() error { return img.plainAfterBig(cfg, b, 12.75, out.Ptr) }, want)

				var names []string
				for n := range sp.layouts {
					names = append(names, n)
				}
				for n := range sp.placed {
					if _, ok := sp.layouts[n]; !ok {
						names = append(names, n)
					}
				}
				sort.Strings(names)
				for _, n := range names {
					layout := sp.layouts[n]
					if layout == "" {
						layout = "(not reported)"
					}
					fmt.Printf("LAYOUT %s %-20s %-14s %-22s placed=%v\n", d.Name(), img.lib.Name(), n, layout, sp.placed[n])
				}
				if !reports && len(sp.placed) != 4 {
					t.Errorf("with no layouts reported, rt placed %v; want all four kernels (each has a parameter aligned above 16)", sp.placed)
				}
			})
		}
	}
}

// tmaMatrix is field11_host.cu's: a row-major 32×64 float matrix of 0, 1, 2, ...
const tmaW, tmaH, tileW, tileH = 64, 32, 32, 8

// TestTMATile copies tiles of a matrix with tmaTile (cp.async.bulk.tensor and
// an mbarrier) through a tensor map built in Go, from every image whose
// tmaTile is compiled for sm_90, and checks every element, zeros included
// where a tile reaches past the matrix. The map is encoded by the backend
// (tensormap.EncodeTiled) and, on the GPU, also by rt/soft, whose bytes must work
// on the hardware as the driver's do.
func TestTMATile(t *testing.T) {
	d := backend(t)
	onSoft := d.Name() == "soft"
	if !onSoft {
		major, _, err := mustDevice(t, d).ComputeCapability()
		must(t, err)
		if major < 9 {
			t.Skipf("TMA needs sm_90; device 0 is sm_%d0", major)
		}
	}
	for _, reports := range []bool{true, false} {
		for _, img := range images {
			if img.tmaTile == nil {
				continue
			}
			t.Run(fmt.Sprintf("%s/reports=%v", img.lib.Name(), reports), func(t *testing.T) {
				sp := newSpy(d, reports)
				load(t, sp, img, onSoft)
				defer img.lib.Unload(sp)
				devs, err := rt.DevicesOf(sp)
				must(t, err)
				ctx, err := devs[0].Primary()
				must(t, err)
				defer ctx.Release()
				s, err := ctx.NewStream()
				must(t, err)
				defer s.Destroy()
				m := make([]float32, tmaW*tmaH)
				for i := range m {
					m[i] = float32(i)
				}
				dm, err := rt.AllocFrom(ctx, m)
				must(t, err)
				defer dm.Free()
				out, err := rt.Alloc[float32](ctx, tileW*tileH)
				must(t, err)
				defer out.Free()
				desc := tensormap.Tiled{DataType: tensormap.Float32, Addr: uint64(dm.Ptr.Addr()), Dims: []uint64{tmaW, tmaH},
					Strides: []uint64{tmaW * 4}, Box: []uint32{tileW, tileH}}
				maps := map[string]rt.TensorMap{}
				maps[d.Name()], err = tensormap.EncodeTiled(d, desc)
				must(t, err)
				if !onSoft {
					maps["soft"], err = tensormap.EncodeTiled(soft.New(soft.Options{}), desc)
					must(t, err)
				}
				for enc, tm := range maps {
					for _, at := range [][2]int32{{32, 8}, {0, 24}, {48, 28}} {
						must(t, out.Zero())
						must(t, img.tmaTile(rt.Config{Grid: rt.D1(1), Block: rt.D1(128), Stream: s}, tm, out.Ptr, at[0], at[1]))
						must(t, s.Synchronize())
						got, err := out.ToHost()
						must(t, err)
						bad := 0
						for y := 0; y < tileH; y++ {
							for x := 0; x < tileW; x++ {
								gx, gy := int(at[0])+x, int(at[1])+y
								want := float32(0) // outside the matrix
								if gx < tmaW && gy < tmaH {
									want = m[gy*tmaW+gx]
								}
								if g := got[y*tileW+x]; g != want {
									if bad++; bad <= 4 {
										t.Errorf("map by %s, tile at %v: out[%d][%d] = %v, want %v", enc, at, y, x, g, want)
									}
								}
							}
						}
						fmt.Printf("TMA %s %-20s reports=%-5v map by %-4s tile at %-8v %d of %d elements wrong\n",
							d.Name(), img.lib.Name(), reports, enc, at, bad, tileW*tileH)
					}
				}
			})
		}
	}
}

func mustDevice(t *testing.T, d rt.Driver) rt.Device {
	devs, err := rt.DevicesOf(d)
	must(t, err)
	return devs[0]
}
