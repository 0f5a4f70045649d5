// Command reduce sums a float array with one kernel that uses dynamic shared
// memory (one slot per warp, sized at launch), warp shuffles and an atomic
// add. The grid is sized from the device: two blocks per multiprocessor.
package main

import (
	"fmt"
	"io"
	"log"
	"math"
	"os"

	"github.com/cugen/cugen/examples/reduce/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	if err := run(os.Stdout, 1<<20); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, n int) error {
	devs, err := rt.Devices()
	if err != nil {
		return err
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		return err
	}
	defer ctx.Release()
	sms, err := ctx.Device().Attribute(rt.AttrMultiprocessorCount)
	if err != nil {
		return err
	}
	in := make([]float32, n)
	var want float64
	for i := range in {
		in[i] = float32(i%1000) / 8
		want += float64(in[i])
	}
	din, err := rt.AllocFrom(ctx, in)
	if err != nil {
		return err
	}
	defer din.Free()
	dout, err := rt.Alloc[float32](ctx, 1)
	if err != nil {
		return err
	}
	defer dout.Free()
	if err := dout.Zero(); err != nil {
		return err
	}
	const block = 256
	cfg := rt.Config{Grid: rt.D1(2 * sms), Block: rt.D1(block), SharedMem: block / 32 * 4, Stream: ctx.NullStream()}
	if err := kernels.BlockSum(cfg, din.Const(), dout.Ptr, int32(n)); err != nil {
		return err
	}
	if err := ctx.Synchronize(); err != nil {
		return err
	}
	got, err := dout.ToHost()
	if err != nil {
		return err
	}
	if rel := math.Abs(float64(got[0])-want) / want; rel > 1e-5 { // float32 atomics in any order
		return fmt.Errorf("sum = %v, want %v (relative error %.2g)", got[0], want, rel)
	}
	fmt.Fprintf(w, "%d multiprocessors, grid %d×%d: sum of %d floats = %v (want %v)\n", sms, cfg.Grid.X, block, n, got[0], want)
	return nil
}
