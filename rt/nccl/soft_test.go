package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/soft"
)

// ranks is a communicator of n soft devices in this process, one stream
// each.
type ranks struct {
	ctxs  []*rt.Context
	comms []*nccl.Comm
	ss    []*rt.Stream
}

func newRanks(t testing.TB, n int, opt *nccl.Options) *ranks {
	t.Helper()
	d := soft.New(soft.Options{Devices: n})
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Fatal(err)
	}
	r := &ranks{}
	for _, dv := range devs {
		c, err := dv.Primary()
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		r.ctxs, r.ss = append(r.ctxs, c), append(r.ss, s)
	}
	if r.comms, err = nccl.InitAll(r.ctxs, opt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nccl.DestroyAll(r.comms...)
		for _, c := range r.ctxs {
			c.Release()
		}
	})
	return r
}

// each runs fn for every rank in one group (one goroutine drives all).
func (r *ranks) each(t testing.TB, fn func(i int, c *nccl.Comm, s *rt.Stream) error) {
	t.Helper()
	err := nccl.Group(func() error {
		for i, c := range r.comms {
			if err := fn(i, c, r.ss[i]); err != nil {
				return fmt.Errorf("rank %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sync waits for every rank's stream and checks no rank met an error.
func (r *ranks) sync(t testing.TB) {
	t.Helper()
	for i, s := range r.ss {
		if err := s.Synchronize(); err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
		if err := r.comms[i].AsyncError(); err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
}

func upload[T any](t testing.TB, r *ranks, n int, gen func(rank, i int) T) []rt.Buffer[T] {
	t.Helper()
	out := make([]rt.Buffer[T], len(r.ctxs))
	for q, c := range r.ctxs {
		host := make([]T, n)
		for i := range host {
			host[i] = gen(q, i)
		}
		b, err := rt.AllocFrom(c, host)
		if err != nil {
			t.Fatal(err)
		}
		out[q] = b
		t.Cleanup(func() { b.Free() })
	}
	return out
}

func alloc[T any](t testing.TB, r *ranks, n int) []rt.Buffer[T] {
	return upload(t, r, n, func(int, int) T { var z T; return z })
}

func host[T any](t testing.TB, b rt.Buffer[T]) []T {
	t.Helper()
	h, err := b.ToHost()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// bitsEqual compares the elements' bits (NaNs and signed zeros included).
func bitsEqual[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(a[0]))
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n))
}

// reduceRef is the documented result: the ranks' values combined in rank
// order.
func reduceRef[T any](n, count int, gen func(rank, i int) T, f func(a, b T) T) []T {
	out := make([]T, count)
	for i := range out {
		acc := gen(0, i)
		for q := 1; q < n; q++ {
			acc = f(acc, gen(q, i))
		}
		out[i] = acc
	}
	return out
}

func checkAllReduce[T interface {
	nccl.Elem
	comparable
}](t *testing.T, r *ranks, count int, op nccl.RedOp, gen func(rank, i int) T, want []T) {
	t.Helper()
	send := upload(t, r, count, gen)
	recv := alloc[T](t, r, count)
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllReduce(c, send[i], recv[i], op, s) })
	r.sync(t)
	for q := range r.comms {
		if got := host(t, recv[q]); !bitsEqual(got, want) {
			t.Errorf("%v %v rank %d: got %v, want %v", nccl.TypeOf[T](), op, q, got, want)
		}
	}
}

func TestAllReduceIntegers(t *testing.T) {
	r := newRanks(t, 4, nil)
	gen32 := func(q, i int) int32 { return int32((q+1)*(i-5)) + int32(q*1000) }
	for _, c := range []struct {
		op nccl.RedOp
		f  func(a, b int32) int32
	}{
		{nccl.Sum, func(a, b int32) int32 { return a + b }},
		{nccl.Prod, func(a, b int32) int32 { return a * b }},
		{nccl.Max, func(a, b int32) int32 { return max(a, b) }},
		{nccl.Min, func(a, b int32) int32 { return min(a, b) }},
	} {
		checkAllReduce(t, r, 17, c.op, gen32, reduceRef(4, 17, gen32, c.f))
	}
	// Avg: the wrapped sum divided rounding toward zero (-11/4 is -2).
	checkAllReduce(t, r, 3, nccl.Avg, func(q, i int) int32 { return []int32{1, 2, 3, 5}[q] * int32(1-2*i) }, []int32{2, -2, -8})
	// Unsigned and 8-bit types wrap; max of uint8 is unsigned.
	checkAllReduce(t, r, 2, nccl.Sum, func(q, i int) uint8 { return uint8(100 + i) }, []uint8{144, 148})
	checkAllReduce(t, r, 1, nccl.Max, func(q, i int) uint8 { return []uint8{1, 200, 3, 4}[q] }, []uint8{200})
	checkAllReduce(t, r, 1, nccl.Max, func(q, i int) int8 { return []int8{1, -56, 3, 4}[q] }, []int8{4})
	checkAllReduce(t, r, 1, nccl.Avg, func(q, i int) int8 { return []int8{-128, -128, -128, -127}[q] }, []int8{(-128*3 - 127 + 512) / 4}) // wraps to 1
	checkAllReduce(t, r, 2, nccl.Sum, func(q, i int) uint64 { return math.MaxUint64 - uint64(i) }, []uint64{math.MaxUint64 - 3, math.MaxUint64 - 7})
	checkAllReduce(t, r, 1, nccl.Min, func(q, i int) int64 { return []int64{5, math.MinInt64, 7, 8}[q] }, []int64{math.MinInt64})
	checkAllReduce(t, r, 1, nccl.Avg, func(q, i int) uint32 { return 7 }, []uint32{7})
}

func TestAllReduceFloats(t *testing.T) {
	r := newRanks(t, 4, nil)
	// Rank order: ((1e8 + 1) - 1e8) + 1 is 1 in float32; another order
	// ((1e8 - 1e8) + (1 + 1)) would give 2.
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) float32 { return []float32{1e8, 1, -1e8, 1}[q] }, []float32{1})
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) float64 { return []float64{1e17, 1, -1e17, 1}[q] }, []float64{1})
	gen := func(q, i int) float64 { return float64(q*3-i) * 0.5 }
	checkAllReduce(t, r, 9, nccl.Prod, gen, reduceRef(4, 9, gen, func(a, b float64) float64 { return a * b }))
	// Min and max ignore NaN and order -0 below +0; a NaN sum is canonical.
	nan32 := math.Float32frombits(0x7fc00001) // a NaN with a payload
	neg0 := float32(math.Copysign(0, -1))
	in := [][]float32{{nan32, 0, 1, nan32}, {2, neg0, nan32, nan32}, {nan32, 0, 3, nan32}, {1, 0, nan32, nan32}}
	gin := func(q, i int) float32 { return in[q][i] }
	canon := math.Float32frombits(0x7fffffff)
	checkAllReduce(t, r, 4, nccl.Min, gin, []float32{1, neg0, 1, canon})
	checkAllReduce(t, r, 4, nccl.Max, gin, []float32{2, 0, 3, canon})
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) float32 { return in[q][0] }, []float32{canon})
	// Avg of floats is a sum of each value times float32(1/4).
	checkAllReduce(t, r, 2, nccl.Avg, func(q, i int) float32 { return float32(q+1) * float32(i+1) }, []float32{2.5, 5})
}

func TestAllReduceNarrowFloats(t *testing.T) {
	r := newRanks(t, 4, nil)
	h := rt.HalfFrom
	// __hadd rounds each step to half: 2048+1 ties to 2048, three times
	// (the exact sum, 2051, would round to 2052).
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) rt.Half { return h([]float32{2048, 1, 1, 1}[q]) }, []rt.Half{h(2048)})
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) rt.Half { return h(60000) }, []rt.Half{0x7c00}) // overflows to +Inf
	checkAllReduce(t, r, 1, nccl.Max, func(q, i int) rt.Half { return []rt.Half{0x7e00, h(1), h(-3), 0x7e00}[q] }, []rt.Half{h(1)})
	b := rt.BFloat16From
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) rt.BFloat16 { return b([]float32{256, 1, 1, 1}[q]) }, []rt.BFloat16{b(256)})
	checkAllReduce(t, r, 1, nccl.Prod, func(q, i int) rt.BFloat16 { return b(1.5) }, []rt.BFloat16{b(1.5 * 1.5 * 1.5 * 1.5)})
	// fp8 works in half and saturates back: 4 × 448 is 448 in e4m3,
	// 4 × 57344 (Inf in half) is 57344 in e5m2.
	e4 := rt.Float8E4M3From
	checkAllReduce(t, r, 2, nccl.Sum, func(q, i int) rt.Float8E4M3 { return []rt.Float8E4M3{e4(448), e4(0.5)}[i] }, []rt.Float8E4M3{e4(448), e4(2)})
	e5 := rt.Float8E5M2From
	checkAllReduce(t, r, 1, nccl.Sum, func(q, i int) rt.Float8E5M2 { return e5(57344) }, []rt.Float8E5M2{e5(57344)})
	checkAllReduce(t, r, 1, nccl.Min, func(q, i int) rt.Float8E5M2 { return []rt.Float8E5M2{e5(3), e5(-2), 0x7f, e5(1)}[q] }, []rt.Float8E5M2{e5(-2)})
	// Half Avg: each value times half(1/4), then the sum.
	checkAllReduce(t, r, 1, nccl.Avg, func(q, i int) rt.Half { return h(float32(q + 1)) }, []rt.Half{h(2.5)})
}

func TestPreMulSum(t *testing.T) {
	r := newRanks(t, 3, nil)
	ops := make([]nccl.RedOp, 3)
	for i, c := range r.comms {
		op, err := nccl.NewPreMulSum(c, float32(i+1)) // each rank its own scalar
		if err != nil {
			t.Fatal(err)
		}
		ops[i] = op
	}
	send := upload(t, r, 2, func(q, i int) float32 { return float32(10*i + q) })
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllReduceInPlace(c, send[i], ops[i], s) })
	r.sync(t)
	// Σ_q (q+1)·(10i+q): i=0: 0+2+6 = 8; i=1: 10+22+36 = 68.
	for q := range r.comms {
		if got := host(t, send[q]); !slices.Equal(got, []float32{8, 68}) {
			t.Errorf("rank %d: %v, want [8 68]", q, got)
		}
	}
	// The operator is for float32 on its communicator only.
	bad := upload(t, r, 1, func(q, i int) float64 { return 1 })
	if err := nccl.AllReduceInPlace(r.comms[0], bad[0], ops[0], r.ss[0]); !errors.Is(err, nccl.InvalidArgument) || !strings.Contains(err.Error(), "made for ncclFloat32") {
		t.Errorf("PreMulSum of float32 on float64: %v", err)
	}
	for i, c := range r.comms {
		if err := c.DestroyOp(ops[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.comms[0].DestroyOp(ops[0]); !errors.Is(err, nccl.InvalidArgument) {
		t.Errorf("DestroyOp twice: %v", err)
	}
}

func TestCollectives(t *testing.T) {
	const n, count = 4, 5
	r := newRanks(t, n, nil)
	gen := func(q, i int) int32 { return int32(100*q + i) }

	t.Run("Broadcast", func(t *testing.T) {
		send := upload(t, r, count, gen)
		recv := alloc[int32](t, r, count)
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
			if i != 2 {
				return nccl.Broadcast(c, rt.Buffer[int32]{}, recv[i], 2, s) // only the root's send is read
			}
			return nccl.Broadcast(c, send[i], recv[i], 2, s)
		})
		r.sync(t)
		for q := range n {
			if got := host(t, recv[q]); !slices.Equal(got, []int32{200, 201, 202, 203, 204}) {
				t.Errorf("rank %d: %v", q, got)
			}
		}
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.BroadcastInPlace(c, send[i], 3, s) })
		r.sync(t)
		for q := range n {
			if got := host(t, send[q]); !slices.Equal(got, []int32{300, 301, 302, 303, 304}) {
				t.Errorf("in place, rank %d: %v", q, got)
			}
		}
	})

	t.Run("Reduce", func(t *testing.T) {
		send := upload(t, r, count, gen)
		recv := upload(t, r, count, func(int, int) int32 { return -1 })
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.Reduce(c, send[i], recv[i], nccl.Sum, 1, s) })
		r.sync(t)
		want := reduceRef(n, count, gen, func(a, b int32) int32 { return a + b })
		for q := range n {
			got := host(t, recv[q])
			if q == 1 && !slices.Equal(got, want) || q != 1 && !slices.Equal(got, []int32{-1, -1, -1, -1, -1}) {
				t.Errorf("rank %d: %v (the root, 1, gets %v; the others' recv is untouched)", q, got, want)
			}
		}
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.ReduceInPlace(c, send[i], nccl.Max, 0, s) })
		r.sync(t)
		if got := host(t, send[0]); !slices.Equal(got, []int32{300, 301, 302, 303, 304}) {
			t.Errorf("in place: %v", got)
		}
	})

	t.Run("AllGather", func(t *testing.T) {
		send := upload(t, r, count, gen)
		recv := alloc[int32](t, r, count*n)
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllGather(c, send[i], recv[i], s) })
		r.sync(t)
		var want []int32
		for q := range n {
			for i := range count {
				want = append(want, gen(q, i))
			}
		}
		for q := range n {
			if got := host(t, recv[q]); !slices.Equal(got, want) {
				t.Errorf("rank %d: %v", q, got)
			}
		}
		// In place: each rank's part of buf is its contribution.
		buf := upload(t, r, count*n, func(q, i int) int32 {
			if i/count == q {
				return gen(q, i%count)
			}
			return -7
		})
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllGatherInPlace(c, buf[i], s) })
		r.sync(t)
		for q := range n {
			if got := host(t, buf[q]); !slices.Equal(got, want) {
				t.Errorf("in place, rank %d: %v", q, got)
			}
		}
	})

	t.Run("ReduceScatter", func(t *testing.T) {
		full := func(q, i int) int32 { return int32(q*1000 + i) }
		send := upload(t, r, count*n, full)
		recv := alloc[int32](t, r, count)
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
			return nccl.ReduceScatter(c, send[i], recv[i], nccl.Sum, s)
		})
		r.sync(t)
		all := reduceRef(n, count*n, full, func(a, b int32) int32 { return a + b })
		for q := range n {
			if got := host(t, recv[q]); !slices.Equal(got, all[q*count:(q+1)*count]) {
				t.Errorf("rank %d: %v, want %v", q, got, all[q*count:(q+1)*count])
			}
		}
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
			return nccl.ReduceScatterInPlace(c, send[i], nccl.Sum, s)
		})
		r.sync(t)
		for q := range n {
			if got := host(t, send[q])[q*count : (q+1)*count]; !slices.Equal(got, all[q*count:(q+1)*count]) {
				t.Errorf("in place, rank %d: %v", q, got)
			}
		}
	})

	t.Run("AllToAll", func(t *testing.T) {
		send := upload(t, r, 2*n, func(q, i int) int32 { return int32(10*q + i/2) }) // part j is (10q+j)×2
		recv := alloc[int32](t, r, 2*n)
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllToAll(c, send[i], recv[i], s) })
		r.sync(t)
		for q := range n {
			var want []int32
			for src := range n {
				want = append(want, int32(10*src+q), int32(10*src+q))
			}
			if got := host(t, recv[q]); !slices.Equal(got, want) {
				t.Errorf("rank %d: %v, want %v", q, got, want)
			}
		}
	})

	t.Run("Slices", func(t *testing.T) {
		// Buffer views (rt.Buffer.Slice) pass the checks as buffers of their context.
		buf := upload(t, r, 10, func(q, i int) int32 { return int32(q + i) })
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
			part, err := buf[i].Slice(4, 7)
			if err != nil {
				return err
			}
			return nccl.AllReduceInPlace(c, part, nccl.Sum, s)
		})
		r.sync(t)
		for q := range n {
			if got := host(t, buf[q]); got[3] != int32(q+3) || got[4] != 0+1+2+3+4*4 || got[6] != 6+6+6+6+6 || got[7] != int32(q+7) {
				t.Errorf("rank %d: %v", q, got)
			}
		}
	})

	t.Run("PtrForms", func(t *testing.T) {
		// Operations on the middle of larger allocations.
		buf := upload(t, r, 10, func(q, i int) float64 { return float64(q + i) })
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
			return nccl.AllReducePtr(c, buf[i].Ptr.Add(2), buf[i].Ptr.Add(6), 3, nccl.Sum, s)
		})
		r.sync(t)
		for q := range n {
			got := host(t, buf[q])
			want := []float64{float64(q), float64(q + 1), float64(q + 2), float64(q + 3), float64(q + 4), float64(q + 5), 14, 18, 22, float64(q + 9)}
			if !slices.Equal(got, want) {
				t.Errorf("rank %d: %v, want %v", q, got, want)
			}
		}
	})
}

func TestSendRecv(t *testing.T) {
	const n = 4
	r := newRanks(t, n, nil)
	send := upload(t, r, 3, func(q, i int) uint64 { return uint64(q<<8 | i) })
	recv := alloc[uint64](t, r, 3)
	// A ring: every rank sends to the next and receives from the previous.
	// Issued Recv first, which only works because the group lets both
	// proceed together.
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		if err := nccl.Recv(c, recv[i], (i+n-1)%n, s); err != nil {
			return err
		}
		return nccl.Send(c, send[i], (i+1)%n, s)
	})
	r.sync(t)
	for q := range n {
		p := uint64((q + n - 1) % n)
		if got := host(t, recv[q]); !slices.Equal(got, []uint64{p << 8, p<<8 | 1, p<<8 | 2}) {
			t.Errorf("rank %d got %v from rank %d", q, got, p)
		}
	}
	// Several messages between one pair arrive in order.
	a, b := upload(t, r, 1, func(q, i int) int32 { return 1 }), upload(t, r, 1, func(q, i int) int32 { return 2 })
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		switch i {
		case 0:
			if err := nccl.Send(c, a[i], 3, s); err != nil {
				return err
			}
			return nccl.Send(c, b[i], 3, s)
		case 3:
			if err := nccl.Recv(c, b[i], 0, s); err != nil {
				return err
			}
			return nccl.Recv(c, a[i], 0, s)
		}
		return nil
	})
	r.sync(t)
	if x, y := host(t, b[3])[0], host(t, a[3])[0]; x != 1 || y != 2 {
		t.Errorf("rank 3 received %d then %d, want 1 then 2", x, y)
	}
}

// One goroutine per rank, no groups: each rank's calls return once
// queued; the collectives meet when the streams reach them.
func TestGoroutinePerRank(t *testing.T) {
	const n = 3
	r := newRanks(t, n, nil)
	bufs := upload(t, r, 4, func(q, i int) float32 { return float32(q) })
	var wg sync.WaitGroup
	errs := make([]error, n)
	for q := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if err := nccl.AllReduceInPlace(r.comms[q], bufs[q], nccl.Sum, r.ss[q]); err != nil {
					errs[q] = err
					return
				}
			}
			errs[q] = r.ss[q].Synchronize()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	r.sync(t)
	// 0+1+2 = 3, then ×3 nine more times.
	want := float32(3 * math.Pow(3, 9))
	for q := range n {
		if got := host(t, bufs[q]); got[0] != want || got[3] != want {
			t.Errorf("rank %d: %v, want %v", q, got, want)
		}
	}
}

// Operations run in their streams' order with the work around them.
func TestStreamOrder(t *testing.T) {
	r := newRanks(t, 2, nil)
	bufs := alloc[int32](t, r, 1000)
	out := make([]*rt.PinnedBuffer[int32], 2)
	for q := range 2 {
		var err error
		if out[q], err = rt.AllocPinned[int32](r.ctxs[q], 1000); err != nil {
			t.Fatal(err)
		}
		defer out[q].Free()
	}
	for round := 1; round <= 3; round++ {
		for q := range 2 {
			if err := bufs[q].FillAsync(r.ss[q], int32(round*(q+1))); err != nil {
				t.Fatal(err)
			}
		}
		r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error { return nccl.AllReduceInPlace(c, bufs[i], nccl.Sum, s) })
		// Work that depends on a group's operations is queued after GroupEnd.
		for q := range 2 {
			if err := bufs[q].CopyToAsync(r.ss[q], out[q].Slice()); err != nil {
				t.Fatal(err)
			}
		}
		r.sync(t)
		for q := range 2 {
			if got := out[q].Slice(); got[0] != int32(3*round) || got[999] != int32(3*round) {
				t.Fatalf("round %d rank %d: %d..%d, want %d", round, q, got[0], got[999], 3*round)
			}
		}
	}
}

// Captured, an operation runs at every launch of the graph, with the
// data its buffers hold then.
func TestGraphCapture(t *testing.T) {
	const n = 3
	r := newRanks(t, n, nil)
	in := upload(t, r, 8, func(q, i int) int64 { return 0 })
	out := alloc[int64](t, r, 8)
	gathered := alloc[int64](t, r, 8*n)
	execs := make([]*rt.GraphExec, n)
	for q, c := range r.comms {
		g, err := r.ss[q].Capture(func(s *rt.Stream) error {
			if err := nccl.AllReduce(c, in[q], out[q], nccl.Sum, s); err != nil {
				return err
			}
			return nccl.AllGather(c, out[q], gathered[q], s)
		})
		if err != nil {
			t.Fatal(err)
		}
		hosts, err := g.NodesOfType(rt.NodeHost)
		if err != nil || len(hosts) != 2 {
			t.Fatalf("the graph has %d host nodes (%v), want 2: one per operation", len(hosts), err)
		}
		if execs[q], err = g.Instantiate(); err != nil {
			t.Fatal(err)
		}
		defer execs[q].Destroy()
		g.Destroy()
	}
	for launch := int64(1); launch <= 3; launch++ {
		for q := range n {
			if err := in[q].CopyFrom(slices.Repeat([]int64{launch * int64(q+1)}, 8)); err != nil {
				t.Fatal(err)
			}
		}
		for q := range n {
			if err := execs[q].Launch(r.ss[q]); err != nil {
				t.Fatal(err)
			}
		}
		r.sync(t)
		for q := range n {
			if got := host(t, out[q]); got[0] != 6*launch || got[7] != 6*launch {
				t.Errorf("launch %d rank %d: %v, want %d", launch, q, got, 6*launch)
			}
			if got := host(t, gathered[q]); got[8*n-1] != 6*launch {
				t.Errorf("launch %d rank %d gathered %v", launch, q, got)
			}
		}
	}
}

// A group whose operations on one communicator use several streams runs
// them after the earlier work of every stream involved.
func TestGroupSeveralStreams(t *testing.T) {
	r := newRanks(t, 2, nil)
	other := make([]*rt.Stream, 2)
	for q, c := range r.ctxs {
		s, err := c.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Destroy()
		other[q] = s
	}
	a := alloc[int32](t, r, 64)
	b := alloc[int32](t, r, 64)
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		if err := a[i].FillAsync(s, 1); err != nil {
			return err
		}
		if err := b[i].FillAsync(other[i], 10); err != nil {
			return err
		}
		if err := nccl.AllReduceInPlace(c, a[i], nccl.Sum, s); err != nil {
			return err
		}
		return nccl.AllReduceInPlace(c, b[i], nccl.Sum, other[i])
	})
	for q := range 2 {
		if err := other[q].Synchronize(); err != nil { // the other stream waits for the group's work
			t.Fatal(err)
		}
		if got := host(t, b[q]); got[0] != 20 || got[63] != 20 {
			t.Errorf("rank %d: b = %d..%d, want 20", q, got[0], got[63])
		}
		if got := host(t, a[q]); got[0] != 2 {
			t.Errorf("rank %d: a = %d, want 2", q, got[0])
		}
	}
}

func TestSplit(t *testing.T) {
	const n = 5
	r := newRanks(t, n, nil)
	sub := make([]*nccl.Comm, n)
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		color := i % 2
		if i == 4 {
			color = nccl.NoColor
		}
		var err error
		sub[i], err = c.Split(color, -i, nil) // reverse order within each color
		return err
	})
	if sub[4] != nil {
		t.Errorf("NoColor gave a communicator")
	}
	// Even ranks 0, 2 (keys 0, -2: rank 2 first); odd 1, 3 (rank 3 first).
	wantRank := map[int][2]int{0: {1, 2}, 2: {0, 2}, 1: {1, 2}, 3: {0, 2}}
	for i, w := range wantRank {
		if sub[i] == nil || sub[i].Rank() != w[0] || sub[i].Size() != w[1] {
			t.Fatalf("rank %d's split communicator: %v, want rank %d of %d", i, sub[i], w[0], w[1])
		}
	}
	bufs := upload(t, r, 1, func(q, i int) int32 { return int32(1 << q) })
	err := nccl.Group(func() error {
		for i := range 4 {
			if err := nccl.AllReduceInPlace(sub[i], bufs[i], nccl.Sum, r.ss[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.sync(t)
	for i, want := range []int32{1 + 4, 2 + 8, 1 + 4, 2 + 8} {
		if got := host(t, bufs[i])[0]; got != want {
			t.Errorf("rank %d: %d, want %d", i, got, want)
		}
	}
	if err := nccl.DestroyAll(sub[:4]...); err != nil {
		t.Fatal(err)
	}
}

// InitRank between GroupStart and GroupEnd: one goroutine creates every
// rank of a communicator whose ID it made.
func TestInitRankInGroup(t *testing.T) {
	d := soft.New(soft.Options{Devices: 3})
	id, err := nccl.NewUniqueID(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nccl.ParseUniqueID(id.String()); err != nil {
		t.Fatal(err)
	}
	devs, _ := rt.DevicesOf(d)
	comms := make([]*nccl.Comm, 3)
	nccl.GroupStart()
	for i, dv := range devs {
		ctx, err := dv.Primary()
		if err != nil {
			t.Fatal(err)
		}
		if comms[i], err = nccl.InitRank(t.Context(), ctx, id, i, 3, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := nccl.AllReduceInPlace(comms[i], rt.Buffer[int32]{}, nccl.Sum, ctx.NullStream()), comms[i].AsyncError(); !errors.Is(err, nccl.InvalidUsage) {
			t.Errorf("a communicator being created in a group: %v", err)
		}
	}
	if err := nccl.GroupEnd(); err != nil {
		t.Fatal(err)
	}
	for i, c := range comms {
		if c.Rank() != i || c.Size() != 3 || c.Engine() != "soft" {
			t.Errorf("communicator %d: %v", i, c)
		}
		if err := c.AsyncError(); err != nil {
			t.Error(err)
		}
	}
	if err := nccl.DestroyAll(comms...); err != nil {
		t.Fatal(err)
	}
}

func TestDevCommSoft(t *testing.T) {
	r := newRanks(t, 3, nil)
	dcs, err := nccl.DevCommAll(r.comms, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dcs {
		if d.Rank() != i || d.NRanks() != 3 || d.LsaRank() != 0 || d.LsaSize() != 1 {
			t.Errorf("rank %d's DevComm: rank %d of %d, LSA %d of %d", i, d.Rank(), d.NRanks(), d.LsaRank(), d.LsaSize())
		}
		if err := r.comms[i].DestroyDevComm(&dcs[i]); err != nil {
			t.Error(err)
		}
	}
	if _, err := r.comms[0].DevComm(&nccl.DevCommRequirements{LsaBarrierCount: 1}); !errors.Is(err, nccl.InvalidUsage) {
		t.Errorf("LSA barriers on soft: %v", err)
	}
}

// Every check that stops an operation before it reaches NCCL.
func TestErrors(t *testing.T) {
	r := newRanks(t, 2, nil)
	r2 := newRanks(t, 2, nil) // another driver's contexts
	c, s := r.comms[0], r.ss[0]
	buf := upload(t, r, 4, func(q, i int) float32 { return 1 })[0]
	small := upload(t, r, 2, func(q, i int) float32 { return 1 })[0]
	foreign := upload(t, r2, 4, func(q, i int) float32 { return 1 })[0]
	other := upload(t, r, 4, func(q, i int) float32 { return 1 })[1] // rank 1's context
	for _, tc := range []struct {
		name string
		err  error
		code nccl.Result
		text string
	}{
		{"nil comm", nccl.AllReduceInPlace((*nccl.Comm)(nil), buf, nccl.Sum, s), nccl.InvalidArgument, "nil communicator"},
		{"nil stream", nccl.AllReduceInPlace(c, buf, nccl.Sum, nil), nccl.InvalidArgument, "nil stream"},
		{"stream of another context", nccl.AllReduceInPlace(c, buf, nccl.Sum, r.ss[1]), nccl.InvalidArgument, "the stream is of"},
		{"buffer of another context", nccl.AllReduce(c, buf, other, nccl.Sum, s), nccl.InvalidArgument, "the recv buffer is in"},
		{"buffer of another driver", nccl.AllReduceInPlace(c, foreign, nccl.Sum, s), nccl.InvalidArgument, "the send buffer is in"},
		{"short recv", nccl.AllReduce(c, buf, small, nccl.Sum, s), nccl.InvalidArgument, "holds 2 elements, the operation needs 4"},
		{"short AllGather recv", nccl.AllGather(c, buf, buf, s), nccl.InvalidArgument, "needs 8"},
		{"buffer without context", nccl.AllReduceInPlace(c, rt.Buffer[float32]{Ptr: buf.Ptr, Len: 4}, nccl.Sum, s), nccl.InvalidArgument, "Ptr form"},
		{"root out of range", nccl.BroadcastInPlace(c, buf, 2, s), nccl.InvalidArgument, "root 2 of a 2-rank communicator"},
		{"negative peer", nccl.Send(c, buf, -1, s), nccl.InvalidArgument, "peer -1"},
		{"unknown reduction", nccl.AllReduceInPlace(c, buf, 42, s), nccl.InvalidArgument, "reduction 42"},
		{"uneven in-place AllGather", nccl.AllGatherInPlace(c, upload(t, r, 3, func(q, i int) float32 { return 0 })[0], s), nccl.InvalidArgument, "does not split into 2"},
		{"negative count", nccl.AllReducePtr(c, buf.Ptr, buf.Ptr, -1, nccl.Sum, s), nccl.InvalidArgument, "negative count"},
		{"nil pointer", nccl.SendPtr(c, rt.Ptr[float32](0), 3, 1, s), nccl.InvalidArgument, "nil device pointer"},
		{"GroupEnd alone", nccl.GroupEnd(), nccl.InvalidUsage, "without GroupStart"},
		{"InitAll twice on a device", initAllSame(r), nccl.InvalidArgument, "both on device 0"},
		{"InitRank of a bad rank", initRank(r, 2, 2), nccl.InvalidArgument, "rank 2 of 2"},
	} {
		if tc.err == nil || nccl.CodeOf(tc.err) != tc.code || !strings.Contains(tc.err.Error(), tc.text) {
			t.Errorf("%s: %v; want %v mentioning %q", tc.name, tc.err, tc.code, tc.text)
		}
	}
	// A destroyed communicator refuses everything.
	r3 := newRanks(t, 1, nil)
	b3 := upload(t, r3, 1, func(q, i int) int8 { return 1 })[0]
	if err := r3.comms[0].Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := nccl.AllReduceInPlace(r3.comms[0], b3, nccl.Sum, r3.ss[0]); !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "destroyed") {
		t.Errorf("after Destroy: %v", err)
	}
	if err := r3.comms[0].Destroy(); !errors.Is(err, nccl.InvalidUsage) {
		t.Errorf("Destroy twice: %v", err)
	}
}

func initAllSame(r *ranks) error {
	_, err := nccl.InitAll([]*rt.Context{r.ctxs[0], r.ctxs[0]}, nil)
	return err
}

func initRank(r *ranks, rank, n int) error {
	_, err := nccl.InitRank(context.Background(), r.ctxs[0], nccl.UniqueID{}, rank, n, nil)
	return err
}

// Ranks that disagree on an operation fail it, with both sides named,
// where NCCL would hang or corrupt memory.
func TestMismatch(t *testing.T) {
	r := newRanks(t, 2, &nccl.Options{PeerTimeout: 10 * time.Second})
	a := upload(t, r, 4, func(q, i int) float32 { return 1 })
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		if i == 0 {
			return nccl.AllReduceInPlace(c, a[i], nccl.Sum, s)
		}
		return nccl.BroadcastInPlace(c, a[i], 0, s)
	})
	for q := range 2 {
		r.ss[q].Synchronize()
		err := r.comms[q].AsyncError()
		if !errors.Is(err, nccl.InvalidUsage) || !strings.Contains(err.Error(), "ncclAllReduce(4 × ncclFloat32, sum)") || !strings.Contains(err.Error(), "ncclBroadcast(4 × ncclFloat32, root 0)") {
			t.Errorf("rank %d: %v", q, err)
		}
	}
	// The failed communicator refuses more work.
	if err := nccl.AllReduceInPlace(r.comms[0], a[0], nccl.Sum, r.ss[0]); !errors.Is(err, nccl.InvalidUsage) {
		t.Errorf("after the failure: %v", err)
	}
}

// A rank whose peer never comes fails with RemoteError after the peer
// timeout, naming the missing rank; so does a Recv without a Send.
func TestPeerNeverArrives(t *testing.T) {
	r := newRanks(t, 3, &nccl.Options{PeerTimeout: 300 * time.Millisecond})
	a := upload(t, r, 2, func(q, i int) int32 { return 1 })
	for q := range 2 { // rank 2 never calls
		if err := nccl.AllReduceInPlace(r.comms[q], a[q], nccl.Sum, r.ss[q]); err != nil {
			t.Fatal(err)
		}
	}
	for q := range 2 {
		r.ss[q].Synchronize()
		if err := r.comms[q].AsyncError(); !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "rank 2 never reached collective #0") {
			t.Errorf("rank %d: %v", q, err)
		}
	}

	r2 := newRanks(t, 2, &nccl.Options{PeerTimeout: 300 * time.Millisecond})
	b := upload(t, r2, 2, func(q, i int) int32 { return 1 })
	if err := nccl.Recv(r2.comms[1], b[1], 0, r2.ss[1]); err != nil {
		t.Fatal(err)
	}
	r2.ss[1].Synchronize()
	if err := r2.comms[1].AsyncError(); !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "got no Send") {
		t.Errorf("Recv without Send: %v", err)
	}

	// A rank that never joins.
	d := soft.New(soft.Options{Devices: 2})
	id, _ := nccl.NewUniqueID(d)
	devs, _ := rt.DevicesOf(d)
	ctx, _ := devs[0].Primary()
	start := time.Now()
	_, err := nccl.InitRank(t.Context(), ctx, id, 0, 2, &nccl.Options{PeerTimeout: 200 * time.Millisecond})
	if !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "rank 1 of 2 never joined") {
		t.Errorf("InitRank alone: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("InitRank took %v to give up", el)
	}
}

// Abort wakes a rank blocked waiting for a peer.
func TestAbort(t *testing.T) {
	r := newRanks(t, 2, &nccl.Options{PeerTimeout: time.Minute})
	a := upload(t, r, 2, func(q, i int) int32 { return 1 })
	if err := nccl.AllReduceInPlace(r.comms[0], a[0], nccl.Sum, r.ss[0]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if err := r.comms[1].Abort(); err != nil {
		t.Fatal(err)
	}
	r.ss[0].Synchronize()
	if time.Since(start) > 20*time.Second {
		t.Errorf("rank 0 waited %v after its peer aborted", time.Since(start))
	}
	if err := r.comms[0].AsyncError(); !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "aborted") {
		t.Errorf("rank 0 after rank 1's Abort: %v", err)
	}
}

func TestTypeOf(t *testing.T) {
	type grad float32
	for _, c := range []struct {
		got, want nccl.DataType
	}{
		{nccl.TypeOf[int8](), nccl.Int8}, {nccl.TypeOf[uint8](), nccl.Uint8}, {nccl.TypeOf[int32](), nccl.Int32},
		{nccl.TypeOf[uint32](), nccl.Uint32}, {nccl.TypeOf[int64](), nccl.Int64}, {nccl.TypeOf[uint64](), nccl.Uint64},
		{nccl.TypeOf[float32](), nccl.Float32}, {nccl.TypeOf[float64](), nccl.Float64}, {nccl.TypeOf[rt.Half](), nccl.Float16},
		{nccl.TypeOf[rt.BFloat16](), nccl.BFloat16}, {nccl.TypeOf[rt.Float8E4M3](), nccl.Float8E4M3},
		{nccl.TypeOf[rt.Float8E5M2](), nccl.Float8E5M2}, {nccl.TypeOf[grad](), nccl.Float32},
	} {
		if c.got != c.want {
			t.Errorf("TypeOf: %v, want %v", c.got, c.want)
		}
	}
	if nccl.Float8E4M3.Size() != 1 || nccl.BFloat16.Size() != 2 || nccl.Uint64.Size() != 8 || nccl.DataType(12).Size() != 0 {
		t.Errorf("sizes")
	}
}

// AllocMemory gives soft ranks rt memory, which operations use; windows
// need symmetric memory, which the soft engine has not.
func TestSoftMemoryAndWindows(t *testing.T) {
	r := newRanks(t, 2, nil)
	mems := make([]*nccl.Memory[float32], 2)
	for q, c := range r.comms {
		m, err := nccl.AllocMemory[float32](c, 1024)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Free()
		mems[q] = m
		if err := rt.CopyHtoD(r.ctxs[q], m.Ptr, slices.Repeat([]float32{float32(q + 1)}, 1024)); err != nil {
			t.Fatal(err)
		}
	}
	r.each(t, func(i int, c *nccl.Comm, s *rt.Stream) error {
		return nccl.AllReducePtr(c, mems[i].Ptr, mems[i].Ptr, 1024, nccl.Sum, s)
	})
	r.sync(t)
	for q := range 2 {
		got := make([]float32, 1024)
		if err := rt.CopyDtoH(r.ctxs[q], got, mems[q].Ptr); err != nil {
			t.Fatal(err)
		}
		if got[0] != 3 || got[1023] != 3 {
			t.Errorf("rank %d: %v..%v, want 3", q, got[0], got[1023])
		}
	}
	if _, err := r.comms[0].RegisterWindow(mems[0].Ptr.Addr(), 4096); !errors.Is(err, nccl.InvalidUsage) {
		t.Errorf("a soft window: %v", err)
	}
	if _, err := r.comms[0].RegisterWindow(mems[0].Ptr.Addr(), 100); !errors.Is(err, nccl.InvalidArgument) {
		t.Errorf("a window of 100 bytes: %v", err)
	}
	if _, err := nccl.AllocMemory[float32](r.comms[0], -1); !errors.Is(err, nccl.InvalidArgument) {
		t.Errorf("negative length: %v", err)
	}
}

// Every rank's stream captured at once, their collectives in one group:
// how one goroutine captures a step of several ranks.
func TestGraphCaptureAllRanks(t *testing.T) {
	const n = 3
	r := newRanks(t, n, nil)
	bufs := upload(t, r, 4, func(q, i int) int32 { return int32(q + 1) })
	execs := captureAll(t, r, func() error {
		return nccl.Group(func() error {
			var errs []error
			for q, c := range r.comms {
				errs = append(errs, nccl.AllReduceInPlace(c, bufs[q], nccl.Sum, r.ss[q]))
			}
			return errors.Join(errs...)
		})
	})
	for range 2 {
		for q, x := range execs {
			if err := x.Launch(r.ss[q]); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.sync(t)
	for q := range n {
		if got := host(t, bufs[q]); got[0] != 18 || got[3] != 18 { // 1+2+3, then ×3
			t.Errorf("rank %d: %v, want 18", q, got)
		}
	}
}

// captureAll captures fn's work on every rank's stream into one graph per
// rank, all streams capturing at once.
func captureAll(t *testing.T, r *ranks, fn func() error) []*rt.GraphExec {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, s := range r.ss {
		if err := s.BeginCapture(rt.CaptureThreadLocal); err != nil {
			t.Fatal(err)
		}
	}
	ferr := fn()
	var execs []*rt.GraphExec
	for _, s := range r.ss {
		g, err := s.EndCapture()
		if err != nil {
			t.Fatal(err)
		}
		x, err := g.Instantiate()
		if err != nil {
			t.Fatal(err)
		}
		g.Destroy()
		execs = append(execs, x)
	}
	if ferr != nil {
		t.Fatal(ferr)
	}
	return execs
}

// Ranks of one process destroyed one at a time, as a loop of Destroy
// does, do not wait for each other (only ranks in other processes are
// waited for, which may still need the rendezvous).
func TestDestroyOneByOne(t *testing.T) {
	d := soft.New(soft.Options{Devices: 3})
	devs, _ := rt.DevicesOf(d)
	var ctxs []*rt.Context
	for _, dv := range devs {
		c, _ := dv.Primary()
		ctxs = append(ctxs, c)
	}
	comms, err := nccl.InitAll(ctxs, nil) // the default, two-minute peer timeout
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, c := range comms {
		if err := c.Destroy(); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("destroying three ranks one by one took %v", el)
	}
}
