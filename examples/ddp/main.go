// Command ddp trains a linear model by data-parallel SGD on every device
// present, the way PyTorch's DistributedDataParallel does: each device
// holds a shard of the data and a replica of the weights, computes its
// shard's gradient with generated kernels, an AllReduce averages the
// gradients over the devices (rt/nccl: NCCL on GPUs, its soft engine on
// rt/soft's devices), and every device applies the same update, so the
// replicas stay identical. One goroutine drives every device; the
// collectives of one step form one group. With -graph, each step after
// the first is one CUDA graph per device, launched again and again.
//
//	go run ./examples/ddp             # the GPUs, or rt/soft's devices
//	CUGEN_SOFT_DEVICES=4 CUGEN_BACKEND=soft go run ./examples/ddp -graph
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"

	"github.com/cugen/cugen/examples/ddp/kernels"
	"github.com/cugen/cugen/rt"
	_ "github.com/cugen/cugen/rt/cgo"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/soft"
)

// Config is a training run's shape.
type Config struct {
	Rows     int     // data rows per device
	Features int     // weights
	Steps    int     // SGD steps
	LR       float32 // learning rate
	Graph    bool    // capture each step after the first as a graph per device
	Seed     uint64
}

// Result is what a run produced.
type Result struct {
	Losses  []float32   // the loss over all devices' data before each step, and after the last
	Weights [][]float32 // each device's final weights
	Truth   []float32   // the weights the data was made with
	Engine  string      // what ran the collectives
}

// replica is one device's share of the run.
type replica struct {
	c          *nccl.Comm
	s          *rt.Stream
	x, y       rt.Buffer[float32]
	w, g, loss rt.Buffer[float32]
}

// Train runs cfg on the devices of ctxs, one rank each.
func Train(ctxs []*rt.Context, cfg Config) (*Result, error) {
	comms, err := nccl.InitAll(ctxs, nil)
	if err != nil {
		return nil, err
	}
	defer nccl.DestroyAll(comms...)
	res := &Result{Engine: comms[0].Engine(), Truth: make([]float32, cfg.Features)}
	for j := range res.Truth {
		res.Truth[j] = float32(j%5) - 2 + float32(j)/float32(cfg.Features)
	}
	reps := make([]*replica, len(ctxs))
	for r, ctx := range ctxs {
		rep, err := newReplica(ctx, comms[r], cfg, res.Truth, uint64(r))
		if err != nil {
			return nil, err
		}
		defer rep.free()
		reps[r] = rep
	}
	// Rank 0's random initial weights, broadcast to every replica.
	if err := nccl.Group(func() error {
		var errs []error
		for _, rep := range reps {
			errs = append(errs, nccl.BroadcastInPlace(rep.c, rep.w, 0, rep.s))
		}
		return errors.Join(errs...)
	}); err != nil {
		return nil, err
	}

	step := func() error { return stepAll(reps, cfg) }
	for k := 0; k < cfg.Steps; k++ {
		if cfg.Graph && k == 1 {
			// The first step ran eagerly (NCCL connects its ranks then);
			// from now on each step is one graph launch per device.
			launch, cleanup, err := captureStep(reps, cfg)
			if err != nil {
				return nil, err
			}
			defer cleanup()
			step = launch
		}
		if err := step(); err != nil {
			return nil, err
		}
		l, err := reps[0].loss.ToHost() // waits for the step
		if err != nil {
			return nil, err
		}
		res.Losses = append(res.Losses, l[0])
	}
	// The loss at the final weights.
	if err := lossAll(reps, cfg); err != nil {
		return nil, err
	}
	l, err := reps[0].loss.ToHost()
	if err != nil {
		return nil, err
	}
	res.Losses = append(res.Losses, l[0])
	for _, rep := range reps {
		w, err := rep.w.ToHost()
		if err != nil {
			return nil, err
		}
		if err := rep.c.AsyncError(); err != nil {
			return nil, err
		}
		res.Weights = append(res.Weights, w)
	}
	return res, nil
}

func newReplica(ctx *rt.Context, c *nccl.Comm, cfg Config, truth []float32, rank uint64) (*replica, error) {
	s, err := ctx.NewStream()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, rank))
	x := make([]float32, cfg.Rows*cfg.Features)
	y := make([]float32, cfg.Rows)
	for i := range cfg.Rows {
		for j := range cfg.Features {
			v := 2*rng.Float32() - 1
			x[i*cfg.Features+j] = v
			y[i] += v * truth[j]
		}
		y[i] += 0.01 * float32(rng.NormFloat64())
	}
	w := make([]float32, cfg.Features)
	if rank == 0 {
		for j := range w {
			w[j] = float32(rng.NormFloat64())
		}
	}
	rep := &replica{c: c, s: s}
	for _, b := range []struct {
		dst *rt.Buffer[float32]
		src []float32
	}{{&rep.x, x}, {&rep.y, y}, {&rep.w, w}, {&rep.g, make([]float32, cfg.Features)}, {&rep.loss, []float32{0}}} {
		if *b.dst, err = rt.AllocFrom(ctx, b.src); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func (rep *replica) free() {
	for _, b := range []rt.Buffer[float32]{rep.x, rep.y, rep.w, rep.g, rep.loss} {
		b.Free()
	}
	rep.s.Destroy()
}

// lossAll queues every replica's loss and their average.
func lossAll(reps []*replica, cfg Config) error {
	for _, rep := range reps {
		if err := kernels.Loss(rt.Linear(1, 32).On(rep.s), rep.x.Const(), rep.y.Const(), rep.w.Const(), rep.loss.Ptr, int32(cfg.Rows), int32(cfg.Features)); err != nil {
			return err
		}
	}
	return nccl.Group(func() error {
		var errs []error
		for _, rep := range reps {
			errs = append(errs, nccl.AllReduceInPlace(rep.c, rep.loss, nccl.Avg, rep.s))
		}
		return errors.Join(errs...)
	})
}

// stepAll queues one step on every replica: the loss and the gradient of
// its shard, the averages over all shards (one group), the update.
func stepAll(reps []*replica, cfg Config) error {
	block := rt.Linear(cfg.Features, 64)
	for _, rep := range reps {
		if err := kernels.Loss(rt.Linear(1, 32).On(rep.s), rep.x.Const(), rep.y.Const(), rep.w.Const(), rep.loss.Ptr, int32(cfg.Rows), int32(cfg.Features)); err != nil {
			return err
		}
		if err := kernels.Grad(block.On(rep.s), rep.x.Const(), rep.y.Const(), rep.w.Const(), rep.g.Ptr, int32(cfg.Rows), int32(cfg.Features)); err != nil {
			return err
		}
	}
	err := nccl.Group(func() error {
		var errs []error
		for _, rep := range reps {
			errs = append(errs, nccl.AllReduceInPlace(rep.c, rep.loss, nccl.Avg, rep.s), nccl.AllReduceInPlace(rep.c, rep.g, nccl.Avg, rep.s))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		return err
	}
	for _, rep := range reps {
		if err := kernels.Sgd(block.On(rep.s), rep.w.Ptr, rep.g.Const(), cfg.LR, int32(cfg.Features)); err != nil {
			return err
		}
	}
	return nil
}

// captureStep records one step as a graph per replica: every stream is
// captured at once, as one goroutine must when its collectives form one
// group, and the graphs are launched together.
func captureStep(reps []*replica, cfg Config) (launch func() error, cleanup func(), err error) {
	runtime.LockOSThread() // thread-local captures: begin and end on this thread
	defer runtime.UnlockOSThread()
	for _, rep := range reps {
		if err := rep.s.BeginCapture(rt.CaptureThreadLocal); err != nil {
			return nil, nil, err
		}
	}
	serr := stepAll(reps, cfg)
	var execs []*rt.GraphExec
	cleanup = func() {
		for _, x := range execs {
			x.Destroy()
		}
	}
	for _, rep := range reps {
		g, err := rep.s.EndCapture()
		if err == nil && serr == nil {
			var x *rt.GraphExec
			if x, err = g.Instantiate(); err == nil {
				execs = append(execs, x)
			}
		}
		if g != nil {
			g.Destroy()
		}
		serr = errors.Join(serr, err)
	}
	if serr != nil {
		cleanup()
		return nil, nil, serr
	}
	return func() error {
		for i, x := range execs {
			if err := x.Launch(reps[i].s); err != nil {
				return err
			}
		}
		return nil
	}, cleanup, nil
}

func main() {
	graph := flag.Bool("graph", false, "run each step after the first as a CUDA graph per device")
	steps := flag.Int("steps", 40, "SGD steps")
	flag.Parse()
	if err := run(os.Stdout, Config{Rows: 256, Features: 8, Steps: *steps, LR: 0.5, Graph: *graph, Seed: 1}); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, cfg Config) error {
	ctxs, err := contexts()
	if err != nil {
		return err
	}
	res, err := Train(ctxs, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d devices, collectives by %s\n", len(ctxs), res.Engine)
	for k, l := range res.Losses {
		if k%10 == 0 || k == len(res.Losses)-1 {
			fmt.Fprintf(w, "step %3d  loss %.6g\n", k, l)
		}
	}
	fmt.Fprintf(w, "weights %.4f\ntruth   %.4f\n", res.Weights[0], res.Truth)
	return nil
}

// contexts is every device's primary context: the default backend's, or
// with CUGEN_BACKEND=soft, CUGEN_SOFT_DEVICES (default 4) soft devices.
func contexts() ([]*rt.Context, error) {
	var d rt.Driver
	var err error
	if os.Getenv(rt.EnvBackend) == "soft" {
		n, _ := strconv.Atoi(os.Getenv("CUGEN_SOFT_DEVICES"))
		if n <= 0 {
			n = 4
		}
		d = soft.New(soft.Options{Devices: n})
	} else if d, err = rt.Default(); err != nil {
		return nil, err
	}
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return nil, err
	}
	var ctxs []*rt.Context
	for _, dev := range devs {
		c, err := dev.Primary()
		if err != nil {
			return nil, err
		}
		ctxs = append(ctxs, c)
	}
	return ctxs, nil
}
