package nccl_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/nccl"
)

// rankOps is every operation on one rank of a communicator — AllReduce
// with each integer reduction, Broadcast, Reduce, AllGather,
// ReduceScatter, AllToAll, a Send/Recv ring and an in-place AllReduce — as
// one group that issue queues on a stream, to be captured into a graph and
// launched round after round with new inputs. The same code serves ranks
// of one process and one rank per process, soft devices and GPUs.
type rankOps struct {
	c       *nccl.Comm
	rank, n int
	// in holds opsCount elements, full opsCount per rank; outs are the
	// results by name.
	in, full rt.Buffer[int32]
	outs     map[string]rt.Buffer[int32]
	names    []string
}

const opsCount = 5

// opsIn is rank q's input in a round, opsFull its opsCount-per-rank input.
func opsIn(round, q, i int) int32   { return int32(10*round + q + 1 + i) }
func opsFull(round, q, j int) int32 { return int32(100*round + 7*q + j) }

func newRankOps(c *nccl.Comm, ctx *rt.Context) (*rankOps, error) {
	o := &rankOps{c: c, rank: c.Rank(), n: c.Size(), outs: map[string]rt.Buffer[int32]{}}
	var errs []error
	alloc := func(n int) rt.Buffer[int32] {
		b, err := rt.Alloc[int32](ctx, n)
		errs = append(errs, err)
		return b
	}
	o.in, o.full = alloc(opsCount), alloc(opsCount*o.n)
	for _, name := range []string{"AllReduce sum", "AllReduce prod", "AllReduce max", "AllReduce min",
		"Broadcast", "Reduce", "ReduceScatter", "Send/Recv", "AllReduceInPlace max"} {
		o.outs[name] = alloc(opsCount)
		o.names = append(o.names, name)
	}
	for _, name := range []string{"AllGather", "AllToAll"} {
		o.outs[name] = alloc(opsCount * o.n)
		o.names = append(o.names, name)
	}
	return o, errors.Join(errs...)
}

func (o *rankOps) free() {
	o.in.Free()
	o.full.Free()
	for _, b := range o.outs {
		b.Free()
	}
}

// issue queues every operation on s, in one group.
func (o *rankOps) issue(s *rt.Stream) error {
	c, out := o.c, o.outs
	return nccl.Group(func() error {
		ip := out["AllReduceInPlace max"]
		return errors.Join(
			nccl.AllReduce(c, o.in, out["AllReduce sum"], nccl.Sum, s),
			nccl.AllReduce(c, o.in, out["AllReduce prod"], nccl.Prod, s),
			nccl.AllReduce(c, o.in, out["AllReduce max"], nccl.Max, s),
			nccl.AllReduce(c, o.in, out["AllReduce min"], nccl.Min, s),
			nccl.Broadcast(c, o.in, out["Broadcast"], o.n-1, s),
			nccl.Reduce(c, o.in, out["Reduce"], nccl.Sum, 0, s),
			nccl.AllGather(c, o.in, out["AllGather"], s),
			nccl.ReduceScatter(c, o.full, out["ReduceScatter"], nccl.Sum, s),
			nccl.AllToAll(c, o.full, out["AllToAll"], s),
			nccl.Send(c, o.in, (o.rank+1)%o.n, s),
			nccl.Recv(c, out["Send/Recv"], (o.rank+o.n-1)%o.n, s),
			ip.CopyFromBufferAsync(s, o.in), // queued now, before the group's operations
			nccl.AllReduceInPlace(c, ip, nccl.Max, s))
	})
}

// setInputs writes a round's inputs, and -1 everywhere else: a result
// left from an earlier round, or written where it should not be, shows.
func (o *rankOps) setInputs(round int) error {
	in := make([]int32, opsCount)
	for i := range in {
		in[i] = opsIn(round, o.rank, i)
	}
	full := make([]int32, opsCount*o.n)
	for j := range full {
		full[j] = opsFull(round, o.rank, j)
	}
	errs := []error{o.in.CopyFrom(in), o.full.CopyFrom(full)}
	for _, b := range o.outs {
		errs = append(errs, b.CopyFrom(slices.Repeat([]int32{-1}, b.Len)))
	}
	return errors.Join(errs...)
}

// want is NCCL's definition of each result on this rank in a round.
func (o *rankOps) want(round int) map[string][]int32 {
	n, q := o.n, o.rank
	w := map[string][]int32{}
	fold := func(f func(a, b int32) int32) []int32 {
		out := make([]int32, opsCount)
		for i := range out {
			out[i] = opsIn(round, 0, i)
			for p := 1; p < n; p++ {
				out[i] = f(out[i], opsIn(round, p, i))
			}
		}
		return out
	}
	row := func(p int) []int32 {
		out := make([]int32, opsCount)
		for i := range out {
			out[i] = opsIn(round, p, i)
		}
		return out
	}
	w["AllReduce sum"] = fold(func(a, b int32) int32 { return a + b })
	w["AllReduce prod"] = fold(func(a, b int32) int32 { return a * b })
	w["AllReduce max"] = fold(func(a, b int32) int32 { return max(a, b) })
	w["AllReduce min"] = fold(func(a, b int32) int32 { return min(a, b) })
	w["AllReduceInPlace max"] = w["AllReduce max"]
	w["Broadcast"] = row(n - 1)
	w["Reduce"] = slices.Repeat([]int32{-1}, opsCount) // recv is read on the root only
	if q == 0 {
		w["Reduce"] = w["AllReduce sum"]
	}
	w["Send/Recv"] = row((q + n - 1) % n)
	var gathered, scattered, exchanged []int32
	for p := range n {
		gathered = append(gathered, row(p)...)
	}
	for i := range opsCount {
		var sum int32
		for p := range n {
			sum += opsFull(round, p, q*opsCount+i)
		}
		scattered = append(scattered, sum)
	}
	for p := range n {
		for i := range opsCount {
			exchanged = append(exchanged, opsFull(round, p, q*opsCount+i))
		}
	}
	w["AllGather"], w["ReduceScatter"], w["AllToAll"] = gathered, scattered, exchanged
	return w
}

// check compares every result with want, once the stream has run them.
func (o *rankOps) check(round int) error {
	want := o.want(round)
	var errs []error
	for _, name := range o.names {
		got, err := o.outs[name].ToHost()
		if err != nil {
			return err
		}
		if !slices.Equal(got, want[name]) {
			errs = append(errs, fmt.Errorf("round %d, rank %d of %d: %s is %v, want %v", round, o.rank, o.n, name, got, want[name]))
		}
	}
	return errors.Join(errs...)
}

// everyOpInGraphs captures every operation on every rank of r into a
// graph per rank (all streams capturing at once, the ranks' groups in one
// group), and launches the graphs in two rounds with new inputs.
func everyOpInGraphs(t *testing.T, r *ranks) {
	t.Helper()
	ops := make([]*rankOps, len(r.comms))
	for q, c := range r.comms {
		o, err := newRankOps(c, r.ctxs[q])
		if err != nil {
			t.Fatal(err)
		}
		defer o.free()
		ops[q] = o
	}
	execs := captureAll(t, r, func() error {
		return nccl.Group(func() error {
			var errs []error
			for q, o := range ops {
				errs = append(errs, o.issue(r.ss[q]))
			}
			return errors.Join(errs...)
		})
	})
	for _, x := range execs {
		defer x.Destroy()
	}
	for round := range 2 {
		for _, o := range ops {
			if err := o.setInputs(round); err != nil {
				t.Fatal(err)
			}
		}
		for q, x := range execs {
			if err := x.Launch(r.ss[q]); err != nil {
				t.Fatal(err)
			}
		}
		r.sync(t)
		for _, o := range ops {
			if err := o.check(round); err != nil {
				t.Error(err)
			}
		}
	}
}

// everyOpInGraphRank is everyOpInGraphs for the one rank of a process.
func everyOpInGraphRank(c *nccl.Comm, ctx *rt.Context, s *rt.Stream) error {
	o, err := newRankOps(c, ctx)
	if err != nil {
		return err
	}
	defer o.free()
	g, err := s.Capture(o.issue)
	if err != nil {
		return err
	}
	defer g.Destroy()
	x, err := g.Instantiate()
	if err != nil {
		return err
	}
	defer x.Destroy()
	for round := range 2 {
		if err := o.setInputs(round); err != nil {
			return err
		}
		if err := x.Launch(s); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := c.AsyncError(); err != nil {
			return err
		}
		if err := o.check(round); err != nil {
			return err
		}
	}
	return nil
}

// Every operation inside graphs, on one, two and three soft ranks.
func TestEveryOpInGraphs(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(n, " ranks"), func(t *testing.T) { everyOpInGraphs(t, newRanks(t, n, nil)) })
	}
}
