// Command structs passes a C++ struct and CUDA vector types by value: the
// struct as a Go type of checked layout (cugen -type), float4, int3, double2
// and char4 as rt's vector types.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cugen/cugen/examples/structs/kernels"
	"github.com/cugen/cugen/examples/structs/params"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer) error {
	devs, err := rt.Devices()
	if err != nil {
		return err
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		return err
	}
	defer ctx.Release()
	s := ctx.NullStream()

	const n = 300
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	din, err := rt.AllocFrom(ctx, in)
	if err != nil {
		return err
	}
	defer din.Free()
	dout, err := rt.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	defer dout.Free()
	p := params.Params{Scale: 0.5, Count: 3, Offset: 0.25}
	bias := rt.Float4{X: 1, Y: 10, Z: 100, W: 1000}
	if err := kernels.Apply(rt.Linear(n, 128).On(s), p, bias, din.Const(), dout.Ptr, n); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	out, err := dout.ToHost()
	if err != nil {
		return err
	}
	for i, v := range out {
		want := in[i]*p.Scale + float32(p.Count) + float32(p.Offset) + bias.X + 2*bias.Y + 3*bias.Z + 4*bias.W
		if v != want {
			return fmt.Errorf("apply: out[%d] = %v, want %v", i, v, want)
		}
	}
	fmt.Fprintf(w, "apply(Params{%v %v %v}, float4{%v %v %v %v}): out[7] = %v\n", p.Scale, p.Count, p.Offset, bias.X, bias.Y, bias.Z, bias.W, out[7])

	res, err := rt.Alloc[int32](ctx, 3)
	if err != nil {
		return err
	}
	defer res.Free()
	if err := kernels.Mix(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s},
		rt.Int3{X: 1, Y: 2, Z: 3}, rt.Double2{X: 4.5, Y: 6}, rt.Char4{X: -1, Y: 2, Z: -3, W: 40}, res.Ptr); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	got, err := res.ToHost()
	if err != nil {
		return err
	}
	if got[0] != 321 || got[1] != 4506 || got[2] != 38 {
		return fmt.Errorf("mix = %v, want [321 4506 38]", got)
	}
	fmt.Fprintf(w, "mix(int3{1 2 3}, double2{4.5 6}, char4{-1 2 -3 40}) = %v\n", got)
	return nil
}
