// Command structs passes C++ structs and CUDA vector types by value: a
// struct as a Go type of checked layout (cugen -type), float4, int3, double2
// and char4 as rt's vector types, and a struct that cugen declares from the
// source (-src), with its members as Go fields.
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
	return weigh(w, ctx, s)
}

// weigh passes a struct that cugen declared from the source, with its
// members as Go fields: by value, and in device memory through
// rt.ConstPtr[kernels.Particle]. The kernel stores the copy it was passed,
// which comes back equal, and sums members of both.
func weigh(w io.Writer, ctx *rt.Context, s *rt.Stream) error {
	weights, err := rt.AllocFrom(ctx, []float32{0.5})
	if err != nil {
		return err
	}
	defer weights.Free()
	p := kernels.Particle{Pos: rt.Float3{X: 1, Y: 2, Z: 3}, Kind: 4, Mass: 5.5, Span: kernels.Span{Lo: 10, Hi: 3},
		Tags: [3]int16{100, -200, 300}, Alive: true, W: weights.Const()}
	many, err := rt.AllocFrom(ctx, []kernels.Particle{{Mass: 1, Alive: true}, {Mass: 10}, {Mass: 100, Alive: true}})
	if err != nil {
		return err
	}
	defer many.Free()
	stored, err := rt.Alloc[kernels.Particle](ctx, 1)
	if err != nil {
		return err
	}
	defer stored.Free()
	sum, err := rt.Alloc[float64](ctx, 1)
	if err != nil {
		return err
	}
	defer sum.Free()
	if err := kernels.Weigh(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, p, many.Const(), 3, stored.Ptr, sum.Ptr); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	back, err := stored.ToHost()
	if err != nil {
		return err
	}
	if back[0] != p {
		return fmt.Errorf("weigh stored %+v, want %+v", back[0], p)
	}
	total, err := sum.ToHost()
	if err != nil {
		return err
	}
	// pos 1+4+9, kind 4, mass 5.5, span 10-3, tags 200, alive 1, w[0] 0.5; many: 1 + 100
	if total[0] != 333 {
		return fmt.Errorf("weigh = %v, want 333", total[0])
	}
	fmt.Fprintf(w, "weigh(Particle{mass %v, tags %v, ...}) = %v\n", p.Mass, p.Tags, total[0])
	return nil
}
