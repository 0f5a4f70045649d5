package nccl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The soft engine: NCCL's API for rt/soft's contexts, built on rt's own
// stream-ordered operations, so that it runs, and is captured into graphs,
// wherever rt/soft does. An operation on a stream is three steps of that
// stream: asynchronous copies of the rank's input into page-locked
// staging memory, a host function that meets the other ranks at the
// communicator's rendezvous (softhub.go) and receives its result, and
// copies of the result into the rank's output. Captured, the steps become
// memcpy and host nodes, and every launch of the graph meets the other
// ranks again. Operations are matched by the order in which their host
// functions run, which is their streams' order.

type softEngine struct{}

func (softEngine) newID(host string) (UniqueID, error) { return newSoftID(host) }

func (softEngine) initRank(ctx context.Context, dev *rt.Context, id UniqueID, rank, nranks int, opt *Options, g *groupState) (commImpl, error) {
	const op = "nccl.InitRank"
	rv, err := rendezvousOf(op, id)
	if err != nil {
		return nil, err
	}
	sc, err := newSoftComm(op, dev, opt)
	if err != nil {
		return nil, err
	}
	sc.rv, sc.rank, sc.size = rv, rank, nranks
	if g != nil {
		g.soft.later = append(g.soft.later, func() error {
			sc.initErr = sc.join(ctx)
			return sc.initErr
		})
		return sc, nil
	}
	if err := sc.join(ctx); err != nil {
		return nil, err
	}
	return sc, nil
}

func (softEngine) initAll(devs []*rt.Context, opt *Options) ([]commImpl, error) {
	const op = "nccl.InitAll"
	key, err := newSoftKey()
	if err != nil {
		return nil, &Error{Op: op, Code: SystemError, Err: err}
	}
	rv := localRV{theHub.get(key)}
	comms := make([]*softComm, len(devs))
	for i, d := range devs {
		sc, err := newSoftComm(op, d, opt)
		if err != nil {
			return nil, err
		}
		sc.rv, sc.rank, sc.size = rv, i, len(devs)
		comms[i] = sc
	}
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for i, sc := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sc.join(context.Background())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]commImpl, len(comms))
	for i, sc := range comms {
		out[i] = sc
	}
	return out, nil
}

// softComm is one rank of a soft communicator.
type softComm struct {
	ctx        *rt.Context
	rv         rendezvous
	rank, size int
	timeout    time.Duration
	initErr    error // of a creation in a group

	mu      sync.Mutex
	collSeq uint64 // collectives, in the order their host functions run
	hostSeq uint64 // Splits, in the order they are called
	sendSeq map[int]uint64
	recvSeq map[int]uint64
	scalars map[RedOp][]byte // NewPreMulSum's operators
	nextOp  RedOp
	free    map[int][]*rt.PinnedBuffer[byte] // staging memory by size class
	all     []*rt.PinnedBuffer[byte]
	events  []*rt.Event

	failed   atomic.Pointer[Error]
	inflight sync.WaitGroup // operations queued and not captured, until done
}

// hostSeqBit sets Split's rounds apart from the collectives'.
const hostSeqBit = 1 << 63

func newSoftComm(op string, dev *rt.Context, opt *Options) (*softComm, error) {
	d := dev.Driver()
	_, s := d.(rt.Streamer)
	_, m := d.(rt.MemoryOps)
	if !s || !m {
		return nil, errorf(op, InvalidUsage, "the soft engine needs host functions (rt.Streamer) and page-locked memory (rt.MemoryOps), which backend %s lacks", d.Name())
	}
	return &softComm{ctx: dev, timeout: opt.peerTimeout(), sendSeq: map[int]uint64{}, recvSeq: map[int]uint64{},
		scalars: map[RedOp][]byte{}, nextOp: numOps, free: map[int][]*rt.PinnedBuffer[byte]{}}, nil
}

// join waits for the other ranks, for at most the peer timeout and ctx.
func (sc *softComm) join(ctx context.Context) error {
	timeout := sc.timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if ctx.Done() == nil {
		return sc.rv.join(sc.rank, sc.size, timeout)
	}
	done := make(chan error, 1)
	go func() { done <- sc.rv.join(sc.rank, sc.size, timeout) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sc.rv.leave(sc.rank, "gave up joining (its context ended)", true)
		return &Error{Op: "nccl.InitRank", Code: RemoteError, Detail: fmt.Sprintf("rank %d of %d: the context ended before every rank joined", sc.rank, sc.size), Err: ctx.Err()}
	}
}

func (sc *softComm) rankSize() (int, int) { return sc.rank, sc.size }
func (sc *softComm) groupDone() error     { return sc.initErr }
func (sc *softComm) describe() string     { return "soft" }
func (sc *softComm) supports(DataType) error {
	return nil
}

func (sc *softComm) asyncError() error {
	if e := sc.failed.Load(); e != nil {
		return e
	}
	return nil
}

func (sc *softComm) fail(err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Op: "soft", Code: InternalError, Err: err}
	}
	sc.failed.CompareAndSwap(nil, e)
}

func (sc *softComm) do(o request, g *groupState) error {
	if err := sc.asyncError(); err != nil {
		return err
	}
	if g != nil {
		g.soft.add(sc, &o)
		return nil
	}
	return sc.enqueue([]*request{&o})
}

// step is one operation's staging.
type step struct {
	o             *request
	desc          opDesc
	in, out       []byte
	inBuf, outBuf *rt.PinnedBuffer[byte]
	scalar        []byte // PreMulSum's, or a floating-point Avg's
}

// enqueue queues ops, which one group gave this rank (or one operation),
// on their stream as one host function between their copies.
func (sc *softComm) enqueue(ops []*request) error {
	s := ops[0].stream
	for _, o := range ops[1:] {
		if o.stream != s {
			return sc.enqueueJoined(ops)
		}
	}
	captured := false
	if st, err := s.CaptureStatus(); err == nil && st == rt.CaptureActive {
		captured = true
	}
	steps := make([]*step, len(ops))
	for i, o := range ops {
		st := &step{o: o, desc: opDesc{Kind: o.kind, Count: o.count, Type: o.dtype}}
		switch o.kind {
		case kBroadcast, kReduce:
			st.desc.Root = o.peer
		}
		if o.kind.reduces() {
			st.desc.Op = hubOpOf(o.red, o.dtype)
			switch {
			case o.red == Avg && o.dtype.float():
				st.scalar = avgScalar(o.dtype, sc.size)
			case o.red >= numOps:
				sc.mu.Lock()
				st.scalar = slices.Clone(sc.scalars[o.red])
				sc.mu.Unlock()
				if st.scalar == nil {
					return errorf(o.kind.String(), InvalidArgument, "operator %v was destroyed", o.red)
				}
			}
		}
		var err error
		if st.inBuf, st.in, err = sc.staging(o.inBytes(sc.rank, sc.size)); err != nil {
			return err
		}
		if st.outBuf, st.out, err = sc.staging(o.outBytes(sc.rank, sc.size)); err != nil {
			return err
		}
		steps[i] = st
	}
	drv, ch, sh := s.Context().Driver(), s.Context().Handle(), s.Handle()
	for _, st := range steps {
		if len(st.in) > 0 {
			if err := drv.MemcpyDtoH(ch, unsafe.Pointer(&st.in[0]), st.o.send, uint64(len(st.in)), sh, true); err != nil {
				return err
			}
		}
	}
	if !captured {
		sc.inflight.Add(1)
	}
	if err := s.LaunchHostFunc(func() { sc.run(steps) }); err != nil {
		if !captured {
			sc.inflight.Done()
		}
		return err
	}
	for _, st := range steps {
		if len(st.out) > 0 {
			if err := drv.MemcpyHtoD(ch, st.o.recv, unsafe.Pointer(&st.out[0]), uint64(len(st.out)), sh, true); err != nil {
				return err
			}
		}
	}
	if captured {
		return nil // the graph keeps the staging memory; Destroy frees it
	}
	return s.LaunchHostFunc(func() {
		sc.release(steps)
		sc.inflight.Done()
	})
}

// enqueueJoined queues a group's operations that use several streams on
// the first one, which first waits for the others' earlier work, and
// which the others then wait for: NCCL's semantics for a group that mixes
// streams.
func (sc *softComm) enqueueJoined(ops []*request) error {
	main := ops[0].stream
	var others []*rt.Stream
	for _, o := range ops[1:] {
		if o.stream != main && !slices.Contains(others, o.stream) {
			others = append(others, o.stream)
		}
	}
	for _, s := range others {
		if err := sc.order(s, main); err != nil {
			return err
		}
	}
	moved := make([]*request, len(ops))
	for i, o := range ops {
		c := *o
		c.stream = main
		moved[i] = &c
	}
	if err := sc.enqueue(moved); err != nil {
		return err
	}
	for _, s := range others {
		if err := sc.order(main, s); err != nil {
			return err
		}
	}
	return nil
}

// order makes later work on to wait for from's work so far.
func (sc *softComm) order(from, to *rt.Stream) error {
	e, err := sc.ctx.NewEvent(rt.EventDisableTiming)
	if err != nil {
		return err
	}
	sc.mu.Lock()
	sc.events = append(sc.events, e)
	sc.mu.Unlock()
	if err := e.Record(from); err != nil {
		return err
	}
	return to.WaitEvent(e)
}

// run is an operation's host function: it meets the other ranks. Sends go
// first (they never wait), then the collectives in order, then the
// receives, which is an order in which any program NCCL runs meets.
func (sc *softComm) run(steps []*step) {
	if sc.failed.Load() != nil {
		return // a failed communicator does nothing more (its outputs are undefined)
	}
	for _, st := range steps {
		if st.o.kind != kSend {
			continue
		}
		seq := sc.next(sc.sendSeq, st.o.peer)
		if err := sc.rv.send(sc.rank, st.o.peer, seq, st.desc, slices.Clone(st.in)); err != nil {
			sc.fail(err)
			return
		}
	}
	for _, st := range steps {
		if st.o.kind == kSend || st.o.kind == kRecv {
			continue
		}
		if st.scalar != nil {
			preMultiply(st.o.dtype, st.in, st.scalar)
		}
		sc.mu.Lock()
		seq := sc.collSeq
		sc.collSeq++
		sc.mu.Unlock()
		out, err := sc.rv.collective(sc.rank, seq, st.desc, st.in, sc.timeout)
		if err == nil && len(out) != len(st.out) {
			err = errorf(st.o.kind.String(), InternalError, "soft rendezvous returned %d bytes, want %d", len(out), len(st.out))
		}
		if err != nil {
			sc.fail(err)
			return
		}
		copy(st.out, out)
	}
	for _, st := range steps {
		if st.o.kind != kRecv {
			continue
		}
		seq := sc.next(sc.recvSeq, st.o.peer)
		data, err := sc.rv.recv(st.o.peer, sc.rank, seq, st.desc, sc.timeout)
		if err == nil && len(data) != len(st.out) {
			err = errorf("ncclRecv", InternalError, "soft rendezvous returned %d bytes, want %d", len(data), len(st.out))
		}
		if err != nil {
			sc.fail(err)
			return
		}
		copy(st.out, data)
	}
}

func (sc *softComm) next(m map[int]uint64, peer int) uint64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := m[peer]
	m[peer] = n + 1
	return n
}

// staging takes page-locked memory for n bytes (nil for 0).
func (sc *softComm) staging(n uint64) (*rt.PinnedBuffer[byte], []byte, error) {
	if n == 0 {
		return nil, nil, nil
	}
	class := bits.Len64(n - 1)
	sc.mu.Lock()
	if l := sc.free[class]; len(l) > 0 {
		b := l[len(l)-1]
		sc.free[class] = l[:len(l)-1]
		sc.mu.Unlock()
		return b, b.Slice()[:n], nil
	}
	sc.mu.Unlock()
	b, err := rt.AllocPinned[byte](sc.ctx, 1<<class)
	if err != nil {
		return nil, nil, err
	}
	sc.mu.Lock()
	sc.all = append(sc.all, b)
	sc.mu.Unlock()
	return b, b.Slice()[:n], nil
}

// release returns finished operations' staging memory for reuse.
func (sc *softComm) release(steps []*step) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, st := range steps {
		for _, b := range []*rt.PinnedBuffer[byte]{st.inBuf, st.outBuf} {
			if b != nil {
				class := bits.Len64(uint64(b.Len()) - 1)
				sc.free[class] = append(sc.free[class], b)
			}
		}
	}
}

// drain waits (at most the peer timeout, after which a waiting operation
// has failed anyway) for the operations queued and not yet done.
func (sc *softComm) drain() {
	done := make(chan struct{})
	go func() {
		sc.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(sc.timeout + slack):
	}
}

func (sc *softComm) freeAll() error {
	sc.mu.Lock()
	all, events := sc.all, sc.events
	sc.all, sc.events, sc.free = nil, nil, map[int][]*rt.PinnedBuffer[byte]{}
	sc.mu.Unlock()
	var errs []error
	for _, b := range all {
		errs = append(errs, b.Free())
	}
	for _, e := range events {
		errs = append(errs, e.Destroy())
	}
	return errors.Join(errs...)
}

// destroy leaves once the rank's work is done; where this process serves
// the rendezvous it then waits for the ranks of other processes to leave
// too (NCCL's ncclCommFinalize waits for the communicator to be quiescent
// everywhere): they may still be receiving their last results from it.
func (sc *softComm) destroy() error {
	sc.drain()
	sc.rv.leave(sc.rank, "destroyed its communicator", false)
	if l, ok := sc.rv.(localRV); ok {
		l.waitRemote(sc.timeout)
	}
	return sc.freeAll()
}

func (sc *softComm) abort() error {
	sc.fail(errorf("ncclCommAbort", RemoteError, "rank %d was aborted", sc.rank))
	sc.rv.leave(sc.rank, "aborted its communicator", true)
	sc.drain()
	return sc.freeAll()
}

func (sc *softComm) split(color, key int, opt *Options, g *groupState) (commImpl, error) {
	if opt == nil {
		opt = &Options{PeerTimeout: sc.timeout}
	}
	var child *softComm
	if color != NoColor {
		var err error
		if child, err = newSoftComm("ncclCommSplit", sc.ctx, opt); err != nil {
			return nil, err
		}
	}
	if g != nil {
		g.soft.later = append(g.soft.later, func() error {
			err := sc.splitInto(color, key, child)
			if child != nil {
				child.initErr = err
			}
			return err
		})
		if child == nil {
			return nil, nil
		}
		return child, nil
	}
	if err := sc.splitInto(color, key, child); err != nil {
		return nil, err
	}
	if child == nil {
		return nil, nil
	}
	return child, nil
}

// splitInto runs the split's round and joins child (nil for NoColor) to
// its new communicator.
func (sc *softComm) splitInto(color, key int, child *softComm) error {
	sc.mu.Lock()
	seq := sc.hostSeq | hostSeqBit
	sc.hostSeq++
	sc.mu.Unlock()
	part, err := sc.rv.collective(sc.rank, seq, opDesc{Kind: kSplit, Color: color, Key: key}, nil, sc.timeout)
	if err != nil {
		return err
	}
	if child == nil {
		return nil
	}
	if len(part) != 24 {
		return errorf("ncclCommSplit", InternalError, "soft rendezvous returned %d bytes, want 24", len(part))
	}
	var k commKey
	copy(k[:], part)
	child.rv = sc.rv.child(k)
	child.rank = int(binary.LittleEndian.Uint32(part[16:]))
	child.size = int(binary.LittleEndian.Uint32(part[20:]))
	return child.join(context.Background())
}

func (sc *softComm) preMulSum(dt DataType, scalar []byte) (RedOp, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	op := sc.nextOp
	sc.nextOp++
	sc.scalars[op] = scalar
	return op, nil
}

func (sc *softComm) destroyOp(op RedOp) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	delete(sc.scalars, op)
	return nil
}

// softGroup is a group's soft work, done at GroupEnd.
type softGroup struct {
	comms []*softComm // in the order the group first used them
	ops   map[*softComm][]*request
	later []func() error // joins and splits: they wait for each other
}

func (g *softGroup) add(sc *softComm, o *request) {
	if g.ops == nil {
		g.ops = map[*softComm][]*request{}
	}
	if _, ok := g.ops[sc]; !ok {
		g.comms = append(g.comms, sc)
	}
	g.ops[sc] = append(g.ops[sc], o)
}

func (g *softGroup) end() error {
	errs := make([]error, len(g.later))
	var wg sync.WaitGroup
	for i, f := range g.later {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	wg.Wait()
	for _, sc := range g.comms {
		errs = append(errs, sc.enqueue(g.ops[sc]))
	}
	return errors.Join(errs...)
}
