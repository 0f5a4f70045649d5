// Command multictx launches one library's kernels in several contexts and on
// every device present. The library is loaded once; nothing in this program
// tracks which context has which module: each launch names its stream, and
// the stream names its context.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/cugen/cugen/examples/multictx/kernels"
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
	// Every device's primary context, and one more context on device 0.
	var ctxs []*rt.Context
	for _, dev := range devs {
		c, err := dev.Primary()
		if err != nil {
			return err
		}
		ctxs = append(ctxs, c)
	}
	extra, err := devs[0].NewContext(0)
	if err != nil {
		return err
	}
	ctxs = append(ctxs, extra)
	defer func() {
		for _, c := range ctxs {
			c.Release()
		}
	}()

	const n = 256
	for i, ctx := range ctxs {
		s, err := ctx.NewStream()
		if err != nil {
			return err
		}
		out, err := rt.Alloc[int32](ctx, n)
		if err != nil {
			return err
		}
		// Each context's own copy of `base`: set it, then read it back through a kernel.
		if err := kernels.SetBase(rt.Config{Grid: rt.D1(1), Block: rt.D1(1), Stream: s}, int32(1000*(i+1))); err != nil {
			return err
		}
		if err := kernels.Fill(rt.Linear(n, 64).On(s), out.Ptr, n, 7); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		got, err := out.ToHost()
		if err != nil {
			return err
		}
		for j, v := range got {
			if want := int32(1000*(i+1) + 7 + j); v != want {
				return fmt.Errorf("%v: out[%d] = %d, want %d", ctx, j, v, want)
			}
		}
		addr, err := kernels.Base.Ptr(ctx)
		if err != nil {
			return err
		}
		base, err := kernels.Base.Get(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-40v base at %v = %d; fill ok\n", ctx, addr, base)
		out.Free()
		s.Destroy()
	}
	return nil
}
