package nccl

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The operations. Each is queued on a stream of the rank's context and
// runs in that stream's order with the generated launches, copies and
// host functions around it; captured (rt.Stream.Capture), it becomes part
// of the graph and runs at every launch of it. Sizes, types, buffers,
// streams and contexts are checked before anything reaches NCCL, and every
// rank must issue the same operations in the same order with the same
// counts, types, reductions and roots.
//
// The Buffer forms take their counts from the buffers (each function says
// which) and check the others are large enough; the InPlace forms work in
// one buffer; the Ptr forms take device pointers and counts as NCCL does,
// for data inside larger allocations, and check the stream alone.

// opKind is one NCCL operation.
type opKind uint8

const (
	kAllReduce opKind = iota
	kBroadcast
	kReduce
	kAllGather
	kReduceScatter
	kAllToAll
	kSend
	kRecv
)

var opNames = [...]string{"ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll", "ncclSend", "ncclRecv"}

func (k opKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return "ncclCommSplit" // kSplit, the rendezvous's
}

// reduces reports whether the operation applies a reduction.
func (k opKind) reduces() bool { return k == kAllReduce || k == kReduce || k == kReduceScatter }

// request is one checked operation, as NCCL's arguments.
type request struct {
	kind       opKind
	send, recv rt.DevPtr
	count      uint64 // NCCL's count argument (per rank, for AllGather, ReduceScatter, AllToAll)
	dtype      DataType
	red        RedOp
	peer       int // the root, or Send's and Recv's peer
	stream     *rt.Stream
}

func (o *request) String() string {
	s := fmt.Sprintf("%v(%d × %v", o.kind, o.count, o.dtype)
	switch {
	case o.kind.reduces() && o.kind == kReduce:
		s += fmt.Sprintf(", %v, root %d", o.red, o.peer)
	case o.kind.reduces():
		s += ", " + o.red.String()
	case o.kind == kBroadcast:
		s += fmt.Sprintf(", root %d", o.peer)
	case o.kind == kSend || o.kind == kRecv:
		s += fmt.Sprintf(", peer %d", o.peer)
	}
	return s + ")"
}

// inBytes and outBytes are how many bytes of its send and recv buffers
// operation o reads and writes on rank rank of size.
func (o *request) inBytes(rank, size int) uint64 {
	n := o.count * uint64(o.dtype.Size())
	switch o.kind {
	case kBroadcast:
		if rank != o.peer {
			return 0
		}
	case kReduceScatter, kAllToAll:
		return n * uint64(size)
	case kRecv:
		return 0
	}
	return n
}

func (o *request) outBytes(rank, size int) uint64 {
	n := o.count * uint64(o.dtype.Size())
	switch o.kind {
	case kReduce:
		if rank != o.peer {
			return 0
		}
	case kAllGather, kAllToAll:
		return n * uint64(size)
	case kSend:
		return 0
	}
	return n
}

// submit checks o against c and queues it.
func (c *Comm) submit(o request) error {
	name := o.kind.String()
	if err := c.usable(name); err != nil {
		return err
	}
	if err := c.checkStream(name, o.stream); err != nil {
		return err
	}
	if err := c.impl.supports(o.dtype); err != nil {
		return err
	}
	if o.count > math.MaxInt64/uint64(max(c.size, 1))/uint64(o.dtype.Size()) {
		return errorf(name, InvalidArgument, "%d elements of %v: too many bytes", o.count, o.dtype)
	}
	switch o.kind {
	case kBroadcast, kReduce, kSend, kRecv:
		if o.peer < 0 || o.peer >= c.size {
			what := "root"
			if o.kind == kSend || o.kind == kRecv {
				what = "peer"
			}
			return errorf(name, InvalidArgument, "%s %d of a %d-rank communicator", what, o.peer, c.size)
		}
	}
	if o.kind.reduces() {
		if err := c.checkOp(name, o.red, o.dtype); err != nil {
			return err
		}
		if o.dtype.fp8() {
			if major := c.major(); major != 0 && major < 9 {
				return errorf(name, InvalidArgument, "reducing %v needs sm_90 or later, and %v is sm_%d", o.dtype, c.ctx.Device(), major*10)
			}
		}
	}
	return c.impl.do(o, currentGroup())
}

// checkStream refuses a nil stream and one of another context.
func (c *Comm) checkStream(name string, s *rt.Stream) error {
	if s == nil {
		return errorf(name, InvalidArgument, "nil stream: pass a stream of %v (its NullStream for the legacy default stream)", c.ctx)
	}
	if !sameContext(s.Context(), c.ctx) {
		return errorf(name, InvalidArgument, "the stream is of %v, and rank %d of the communicator works in %v", s.Context(), c.rank, c.ctx)
	}
	return nil
}

func sameContext(a, b *rt.Context) bool {
	return a != nil && b != nil && a.Driver() == b.Driver() && a.Handle() == b.Handle()
}

// checkBuf checks that b, the role buffer of operation name, is c's
// context's and holds at least need elements. A buffer the rank does not
// use (need 0) may be the zero Buffer.
func checkBuf[T any](c *Comm, name, role string, b rt.Buffer[T], need int) error {
	if err := c.usable(name); err != nil {
		return err
	}
	if need == 0 {
		return nil
	}
	switch {
	case b.Context() == nil:
		return errorf(name, InvalidArgument, "the %s buffer has no context (it is a literal, not rt.Alloc's, rt.AdoptBuffer's or a Slice): pass its pointer to the operation's Ptr form", role)
	case !sameContext(b.Context(), c.ctx):
		return errorf(name, InvalidArgument, "the %s buffer is in %v, and rank %d of the communicator works in %v", role, b.Context(), c.rank, c.ctx)
	case b.Len < need:
		return errorf(name, InvalidArgument, "the %s buffer holds %d elements, the operation needs %d", role, b.Len, need)
	case b.Ptr.IsNil():
		return errorf(name, InvalidArgument, "the %s buffer's pointer is nil", role)
	}
	return nil
}

// checkPtrs checks the Ptr forms' pointers and count.
func checkPtrs(name string, count int, ptrs ...rt.DevPtr) error {
	if count < 0 {
		return errorf(name, InvalidArgument, "negative count %d", count)
	}
	if count == 0 {
		return nil
	}
	for _, p := range ptrs {
		if p == 0 {
			return errorf(name, InvalidArgument, "nil device pointer with count %d", count)
		}
	}
	return nil
}

func elemOffset[T any](p rt.Ptr[T], n int) rt.DevPtr { return p.Add(n).Addr() }

// ---- AllReduce ----

// AllReduce reduces send across the ranks with op and leaves the result in
// recv on every rank (ncclAllReduce). The count is send.Len; recv holds at
// least as many. send and recv may be one buffer (AllReduceInPlace).
func AllReduce[T Elem](c *Comm, send, recv rt.Buffer[T], op RedOp, s *rt.Stream) error {
	const name = "ncclAllReduce"
	if err := checkBuf(c, name, "send", send, send.Len); err != nil {
		return err
	}
	if err := checkBuf(c, name, "recv", recv, send.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kAllReduce, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(send.Len), dtype: TypeOf[T](), red: op, stream: s})
}

// AllReduceInPlace is AllReduce of buf into itself.
func AllReduceInPlace[T Elem](c *Comm, buf rt.Buffer[T], op RedOp, s *rt.Stream) error {
	return AllReduce(c, buf, buf, op, s)
}

// AllReducePtr is AllReduce of count elements from send to recv (the same
// pointer: in place).
func AllReducePtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, op RedOp, s *rt.Stream) error {
	if err := checkPtrs("ncclAllReduce", count, send.Addr(), recv.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kAllReduce, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), red: op, stream: s})
}

// ---- Broadcast ----

// Broadcast copies the root rank's send to recv on every rank
// (ncclBroadcast). The count is recv.Len; on the root, send holds at least
// as many, and the other ranks' send is not used (pass rt.Buffer[T]{}).
func Broadcast[T Elem](c *Comm, send, recv rt.Buffer[T], root int, s *rt.Stream) error {
	const name = "ncclBroadcast"
	if err := c.usable(name); err != nil {
		return err
	}
	need := 0
	if c.rank == root {
		need = recv.Len
	}
	if err := checkBuf(c, name, "send", send, need); err != nil {
		return err
	}
	if err := checkBuf(c, name, "recv", recv, recv.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kBroadcast, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(recv.Len), dtype: TypeOf[T](), peer: root, stream: s})
}

// BroadcastInPlace is Broadcast of the root's buf into every rank's buf.
func BroadcastInPlace[T Elem](c *Comm, buf rt.Buffer[T], root int, s *rt.Stream) error {
	return Broadcast(c, buf, buf, root, s)
}

// BroadcastPtr is Broadcast of count elements (send is read on the root only).
func BroadcastPtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, root int, s *rt.Stream) error {
	if err := checkPtrs("ncclBroadcast", count, recv.Addr()); err != nil {
		return err
	}
	if c != nil && c.rank == root {
		if err := checkPtrs("ncclBroadcast", count, send.Addr()); err != nil {
			return err
		}
	}
	return c.submit(request{kind: kBroadcast, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), peer: root, stream: s})
}

// ---- Reduce ----

// Reduce reduces send across the ranks with op into the root rank's recv
// (ncclReduce). The count is send.Len; on the root, recv holds at least as
// many, and the other ranks' recv is not used (pass rt.Buffer[T]{}).
func Reduce[T Elem](c *Comm, send, recv rt.Buffer[T], op RedOp, root int, s *rt.Stream) error {
	const name = "ncclReduce"
	if err := c.usable(name); err != nil {
		return err
	}
	if err := checkBuf(c, name, "send", send, send.Len); err != nil {
		return err
	}
	need := 0
	if c.rank == root {
		need = send.Len
	}
	if err := checkBuf(c, name, "recv", recv, need); err != nil {
		return err
	}
	return c.submit(request{kind: kReduce, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(send.Len), dtype: TypeOf[T](), red: op, peer: root, stream: s})
}

// ReduceInPlace is Reduce of every rank's buf into the root's buf.
func ReduceInPlace[T Elem](c *Comm, buf rt.Buffer[T], op RedOp, root int, s *rt.Stream) error {
	return Reduce(c, buf, buf, op, root, s)
}

// ReducePtr is Reduce of count elements (recv is written on the root only).
func ReducePtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, op RedOp, root int, s *rt.Stream) error {
	if err := checkPtrs("ncclReduce", count, send.Addr()); err != nil {
		return err
	}
	if c != nil && c.rank == root {
		if err := checkPtrs("ncclReduce", count, recv.Addr()); err != nil {
			return err
		}
	}
	return c.submit(request{kind: kReduce, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), red: op, peer: root, stream: s})
}

// ---- AllGather ----

// AllGather gathers every rank's send into recv on every rank, rank i's at
// element i×send.Len (ncclAllGather). The count is send.Len; recv holds at
// least Size()×send.Len.
func AllGather[T Elem](c *Comm, send, recv rt.Buffer[T], s *rt.Stream) error {
	const name = "ncclAllGather"
	if err := c.usable(name); err != nil {
		return err
	}
	if err := checkBuf(c, name, "send", send, send.Len); err != nil {
		return err
	}
	if err := checkBuf(c, name, "recv", recv, send.Len*c.size); err != nil {
		return err
	}
	return c.submit(request{kind: kAllGather, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(send.Len), dtype: TypeOf[T](), stream: s})
}

// AllGatherInPlace gathers into buf, whose part Rank() (of Size() equal
// parts) is this rank's contribution.
func AllGatherInPlace[T Elem](c *Comm, buf rt.Buffer[T], s *rt.Stream) error {
	const name = "ncclAllGather"
	if err := c.usable(name); err != nil {
		return err
	}
	if buf.Len%c.size != 0 {
		return errorf(name, InvalidArgument, "a buffer of %d elements does not split into %d equal parts", buf.Len, c.size)
	}
	if err := checkBuf(c, name, "recv", buf, buf.Len); err != nil {
		return err
	}
	n := buf.Len / c.size
	return c.submit(request{kind: kAllGather, send: elemOffset(buf.Ptr, c.rank*n), recv: buf.Ptr.Addr(), count: uint64(n), dtype: TypeOf[T](), stream: s})
}

// AllGatherPtr is AllGather of count elements per rank (recv holds Size()×count).
func AllGatherPtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, s *rt.Stream) error {
	if err := checkPtrs("ncclAllGather", count, send.Addr(), recv.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kAllGather, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), stream: s})
}

// ---- ReduceScatter ----

// ReduceScatter reduces send across the ranks with op and leaves part i
// of the result in rank i's recv (ncclReduceScatter). The count is
// recv.Len; send holds at least Size()×recv.Len.
func ReduceScatter[T Elem](c *Comm, send, recv rt.Buffer[T], op RedOp, s *rt.Stream) error {
	const name = "ncclReduceScatter"
	if err := c.usable(name); err != nil {
		return err
	}
	if err := checkBuf(c, name, "send", send, recv.Len*c.size); err != nil {
		return err
	}
	if err := checkBuf(c, name, "recv", recv, recv.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kReduceScatter, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(recv.Len), dtype: TypeOf[T](), red: op, stream: s})
}

// ReduceScatterInPlace reduces buf (Size() equal parts) and leaves this
// rank's part of the result in its place, part Rank() of buf.
func ReduceScatterInPlace[T Elem](c *Comm, buf rt.Buffer[T], op RedOp, s *rt.Stream) error {
	const name = "ncclReduceScatter"
	if err := c.usable(name); err != nil {
		return err
	}
	if buf.Len%c.size != 0 {
		return errorf(name, InvalidArgument, "a buffer of %d elements does not split into %d equal parts", buf.Len, c.size)
	}
	if err := checkBuf(c, name, "send", buf, buf.Len); err != nil {
		return err
	}
	n := buf.Len / c.size
	return c.submit(request{kind: kReduceScatter, send: buf.Ptr.Addr(), recv: elemOffset(buf.Ptr, c.rank*n), count: uint64(n), dtype: TypeOf[T](), red: op, stream: s})
}

// ReduceScatterPtr is ReduceScatter of count elements per rank (send holds Size()×count).
func ReduceScatterPtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, op RedOp, s *rt.Stream) error {
	if err := checkPtrs("ncclReduceScatter", count, send.Addr(), recv.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kReduceScatter, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), red: op, stream: s})
}

// ---- AllToAll ----

// AllToAll sends part j of send (of Size() equal parts of count elements)
// to rank j, which puts it at part i of its recv for sender i
// (ncclAlltoAll, NCCL 2.28+). The count per part is send.Len/Size(); recv
// holds at least send.Len.
func AllToAll[T Elem](c *Comm, send, recv rt.Buffer[T], s *rt.Stream) error {
	const name = "ncclAlltoAll"
	if err := c.usable(name); err != nil {
		return err
	}
	if send.Len%c.size != 0 {
		return errorf(name, InvalidArgument, "a send buffer of %d elements does not split into %d equal parts", send.Len, c.size)
	}
	if err := checkBuf(c, name, "send", send, send.Len); err != nil {
		return err
	}
	if err := checkBuf(c, name, "recv", recv, send.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kAllToAll, send: send.Ptr.Addr(), recv: recv.Ptr.Addr(), count: uint64(send.Len / c.size), dtype: TypeOf[T](), stream: s})
}

// AllToAllPtr is AllToAll of count elements per rank pair (send and recv
// hold Size()×count).
func AllToAllPtr[T Elem](c *Comm, send, recv rt.Ptr[T], count int, s *rt.Stream) error {
	if err := checkPtrs("ncclAlltoAll", count, send.Addr(), recv.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kAllToAll, send: send.Addr(), recv: recv.Addr(), count: uint64(count), dtype: TypeOf[T](), stream: s})
}

// ---- Send and Recv ----

// Send sends buf to rank peer, which receives it with a Recv of the same
// count and type (ncclSend). A Send and its Recv that must proceed
// together (two ranks exchanging data) go in a group.
func Send[T Elem](c *Comm, buf rt.Buffer[T], peer int, s *rt.Stream) error {
	if err := checkBuf(c, "ncclSend", "send", buf, buf.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kSend, send: buf.Ptr.Addr(), count: uint64(buf.Len), dtype: TypeOf[T](), peer: peer, stream: s})
}

// Recv receives into buf what rank peer sends with a Send of buf.Len
// elements of T (ncclRecv).
func Recv[T Elem](c *Comm, buf rt.Buffer[T], peer int, s *rt.Stream) error {
	if err := checkBuf(c, "ncclRecv", "recv", buf, buf.Len); err != nil {
		return err
	}
	return c.submit(request{kind: kRecv, recv: buf.Ptr.Addr(), count: uint64(buf.Len), dtype: TypeOf[T](), peer: peer, stream: s})
}

// SendPtr is Send of count elements.
func SendPtr[T Elem](c *Comm, p rt.Ptr[T], count, peer int, s *rt.Stream) error {
	if err := checkPtrs("ncclSend", count, p.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kSend, send: p.Addr(), count: uint64(count), dtype: TypeOf[T](), peer: peer, stream: s})
}

// RecvPtr is Recv of count elements.
func RecvPtr[T Elem](c *Comm, p rt.Ptr[T], count, peer int, s *rt.Stream) error {
	if err := checkPtrs("ncclRecv", count, p.Addr()); err != nil {
		return err
	}
	return c.submit(request{kind: kRecv, recv: p.Addr(), count: uint64(count), dtype: TypeOf[T](), peer: peer, stream: s})
}

// putElem stores v's bytes in b.
func putElem[T Elem](b []byte, v T) {
	copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)))
}
