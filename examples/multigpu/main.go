// Command multigpu runs one generated library on every device present:
// loaded once, its kernels launched in each device's primary context and
// in created ones from several goroutines, peer copies (synchronous and
// stream-ordered, events across devices), kernels that read and write
// another device's memory, a CUDA graph per device, and a large peer
// copy's bandwidth. Every result is checked against a host reference, and
// each deterministic output is printed as a digest line, the same on the
// GPUs and on rt/soft's devices.
//
//	go run ./examples/multigpu                          # the GPUs (rt/soft's devices without one)
//	CUGEN_BACKEND=soft CUGEN_SOFT_DEVICES=2 go run ./examples/multigpu
//
// With one device it runs what one device can: two contexts of it stand
// in for two devices, and what needs two devices says that it is skipped.
// examples/multigpu/two-gpu.sh runs the tests on a machine with two GPUs,
// with CUDA's own peer-copy bandwidth and rt/nccl's two-GPU checks beside.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/cgo"
	"github.com/cugen/cugen/rt/soft"
)

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer) error {
	b, err := open()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s, %s\n", b.drv.Name(), plural(len(b.devs), "device"))
	note := func(s string) { fmt.Fprintln(w, "note:", s) }
	for _, c := range []func(*backend, io.Writer, func(string)) error{oneLibrary, peers, graphs} {
		if err := c(b, w, note); err != nil {
			return err
		}
	}
	bw, err := peerBandwidth(b, 64<<20, 20)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, bw)
	return nil
}

// backend is the driver the checks run on and its devices. The driver is
// wrapped to count the library loads rt asks of it (LibraryLoad): the
// evidence, with the driver's own handles, that one Library is loaded once
// for every context, device and goroutine.
type backend struct {
	drv   rt.Driver
	devs  []rt.Device
	loads *atomic.Int64
}

// countingCUDA and countingSoft are the two backends with LibraryLoad
// counted; every other method, optional capabilities included, is the
// backend's own.
type countingCUDA struct {
	*cgo.Driver
	loads *atomic.Int64
}

func (d *countingCUDA) LibraryLoad(image []byte, o rt.LoadOptions) (rt.LibHandle, error) {
	d.loads.Add(1)
	return d.Driver.LibraryLoad(image, o)
}

type countingSoft struct {
	*soft.Driver
	loads *atomic.Int64
}

func (d *countingSoft) LibraryLoad(image []byte, o rt.LoadOptions) (rt.LibHandle, error) {
	d.loads.Add(1)
	return d.Driver.LibraryLoad(image, o)
}

var opened struct {
	once sync.Once
	b    *backend
	err  error
}

// open is the process's backend, made once: the GPUs (CUGEN_BACKEND=cuda,
// or unset and a GPU present), else rt/soft with $CUGEN_SOFT_DEVICES
// devices (default 2).
func open() (*backend, error) {
	opened.once.Do(func() { opened.b, opened.err = openBackend() })
	return opened.b, opened.err
}

func openBackend() (*backend, error) {
	loads := new(atomic.Int64)
	var drv rt.Driver
	name := os.Getenv(rt.EnvBackend)
	switch name {
	case "", "cuda":
		d, err := cgo.New()
		if err == nil {
			var n int
			if n, err = d.DeviceCount(); err == nil && n == 0 {
				err = errors.New("no devices")
			}
		}
		if err != nil && name == "cuda" {
			return nil, fmt.Errorf("%s=cuda: %w", rt.EnvBackend, err)
		}
		if err == nil {
			drv = &countingCUDA{d, loads}
			break
		}
		fallthrough
	case "soft":
		n := 2
		if v := os.Getenv("CUGEN_SOFT_DEVICES"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 1 {
				return nil, fmt.Errorf("CUGEN_SOFT_DEVICES=%q: want a number of devices, 1 or more", v)
			}
		}
		drv = &countingSoft{soft.New(soft.Options{Devices: n}), loads}
	default:
		return nil, fmt.Errorf("%s=%s: this example runs on cuda or soft", rt.EnvBackend, name)
	}
	devs, err := rt.DevicesOf(drv)
	if err != nil {
		return nil, err
	}
	return &backend{drv: drv, devs: devs, loads: loads}, nil
}

// plural is "1 device", "2 devices".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
