package rt_test

import (
	"fmt"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// Device memory is typed: a Buffer[T] holds T elements and its Ptr is the
// rt.Ptr[T] a generated launch function takes.
func ExampleAllocFrom() {
	devs, err := rt.DevicesOf(soft.New(soft.Options{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, err := devs[0].Primary()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Release()
	buf, err := rt.AllocFrom(ctx, []float32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Free()
	host, _ := buf.ToHost()
	fmt.Println(buf.Len, buf.Bytes(), host)
	// Output: 3 12 [1 2 3]
}

// Every device of a driver, with its primary context.
func ExampleDevicesOf() {
	devs, err := rt.DevicesOf(soft.New(soft.Options{Devices: 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range devs {
		major, minor, _ := d.ComputeCapability()
		ctx, err := d.Primary()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: compute capability %d.%d, primary %v\n", d, major, minor, ctx.IsPrimary())
		ctx.Release()
	}
	// Output:
	// soft device 0: compute capability 9.0, primary true
	// soft device 1: compute capability 9.0, primary true
}
