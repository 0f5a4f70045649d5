// Command pertarget runs kernels shipped as one PTX file per target
// (package mm) and says which image the device runs: cugen generated the
// files into one library whose fatbin holds all three, and the driver (or
// rt/soft) chose the newest PTX the device can take.
package main

import (
	"fmt"
	"io"
	"log"
	"math"
	"os"

	"github.com/cugen/cugen/examples/pertarget/mm"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	d, err := rt.Default()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(os.Stdout, d); err != nil {
		log.Fatal(err)
	}
}

// run normalizes a·2 + b·3 for a field of vectors on d's first device and
// checks it on the host.
func run(w io.Writer, d rt.Driver) error {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return err
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		return err
	}
	defer ctx.Release()
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	const n = 1000
	a, b, m := make([][3]float32, n), make([][3]float32, n), make([][3]float32, n)
	for i := range a {
		a[i] = [3]float32{float32(i), 1, -2}
		b[i] = [3]float32{1, float32(i % 7), 0.5}
	}
	va, err := upload(ctx, a)
	if err != nil {
		return err
	}
	defer va.Free()
	vb, err := upload(ctx, b)
	if err != nil {
		return err
	}
	defer vb.Free()
	vm, err := mm.NewVector(ctx, n)
	if err != nil {
		return err
	}
	defer vm.Free()
	if err := mm.Madd3(s, vm, va, 2, vb, 3); err != nil {
		return err
	}
	if err := mm.Normalize(s, vm); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	var got [3][]float32
	for c, buf := range []rt.Buffer[float32]{vm.X, vm.Y, vm.Z} {
		if got[c], err = buf.ToHost(); err != nil {
			return err
		}
	}
	worst := 0.0
	for i := range m {
		var v [3]float64
		var l float64
		for c := range v {
			v[c] = float64(a[i][c])*2 + float64(b[i][c])*3
			l += v[c] * v[c]
		}
		for c := range v {
			worst = max(worst, math.Abs(float64(got[c][i])-v[c]/math.Sqrt(l)))
		}
	}
	if worst > 1e-6 {
		return fmt.Errorf("pertarget: max |error| %.3g against the host", worst)
	}
	name, _ := devs[0].Name()
	major, minor, _ := devs[0].ComputeCapability()
	ptx, bin, err := mm.Image(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "IMAGE-CHOICE: %s (%s, sm_%d%d) runs madd3 from compute_%d PTX as sm_%d code; %d vectors match the host (max |error| %.2g)\n",
		name, d.Name(), major, minor, ptx, bin, n, worst)
	return nil
}

// upload is a field of vectors on the device.
func upload(ctx *rt.Context, vs [][3]float32) (mm.Vector, error) {
	v, err := mm.NewVector(ctx, len(vs))
	if err != nil {
		return v, err
	}
	for c, buf := range []rt.Buffer[float32]{v.X, v.Y, v.Z} {
		comp := make([]float32, len(vs))
		for i := range vs {
			comp[i] = vs[i][c]
		}
		if err := buf.CopyFrom(comp); err != nil {
			v.Free()
			return mm.Vector{}, err
		}
	}
	return v, nil
}
