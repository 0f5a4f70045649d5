// Command histogram counts weighted bytes on the device: the weights are a
// __constant__ table written from Go, a __device__ counter counts the bytes
// each context has seen, and a __managed__ total is shared by all contexts
// and the host.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cugen/cugen/examples/histogram/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	_ "github.com/cugen/cugen/rt/soft"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// histogram runs the kernel over data in ctx and returns the bins.
func histogram(ctx *rt.Context, data []byte) ([]uint32, error) {
	dd, err := rt.AllocFrom(ctx, data)
	if err != nil {
		return nil, err
	}
	defer dd.Free()
	bins, err := rt.Alloc[uint32](ctx, 256)
	if err != nil {
		return nil, err
	}
	defer bins.Free()
	if err := bins.Zero(); err != nil {
		return nil, err
	}
	s := ctx.NullStream()
	if err := kernels.Histogram(rt.Config{Grid: rt.D1(8), Block: rt.D1(128), Stream: s}, dd.Const(), int32(len(data)), bins.Ptr); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return bins.ToHost()
}

func run(w io.Writer) error {
	devs, err := rt.Devices()
	if err != nil {
		return err
	}
	a, err := devs[0].Primary()
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := devs[0].NewContext(0)
	if err != nil {
		return err
	}
	defer b.Release()

	// cugen -src typed the table: NVVM declares `unsigned weights[256]` as
	// 1024 bytes, the source says 256 unsigned ints.
	weights := kernels.Weights
	table := make([]uint32, 256)
	for i := range table {
		table[i] = uint32(i%4 + 1)
	}
	data := make([]byte, 10000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := kernels.Total.Set(a, 0); err != nil {
		return err
	}
	for i, ctx := range []*rt.Context{a, b} {
		if err := weights.Write(ctx, table); err != nil { // per context, like every __constant__
			return err
		}
		if err := kernels.Seen.Set(ctx, 0); err != nil {
			return err
		}
		part := data[:len(data)/(i+1)] // the two contexts see different amounts
		got, err := histogram(ctx, part)
		if err != nil {
			return err
		}
		want := make([]uint32, 256)
		for _, x := range part {
			want[x] += table[x]
		}
		for j := range want {
			if got[j] != want[j] {
				return fmt.Errorf("%v: bin %d = %d, want %d", ctx, j, got[j], want[j])
			}
		}
		seen, err := kernels.Seen.Get(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%v: %d bytes histogrammed, bins ok, seen (per context) = %d\n", ctx, len(part), seen)
	}
	total, err := kernels.Total.Get(a)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "managed total (all contexts) = %d\n", total)
	if total != uint64(len(data)+len(data)/2) {
		return fmt.Errorf("managed total = %d, want %d", total, len(data)+len(data)/2)
	}
	return nil
}
