package nccl

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// The soft engine's rendezvous. Every soft communicator has one, in the
// process that made its ID: ranks in that process reach it directly, ranks
// in other processes over TCP (softnet.go). It matches the ranks'
// operations by their order (each rank's k-th collective meets the others'
// k-th; each (sender, receiver) pair's k-th Send meets that pair's k-th
// Recv), checks they agree (NCCL would hang or corrupt memory where they
// do not), computes each collective once, in rank order, and hands each
// rank its part.

// commKey names one soft communicator: the random key of its ID, or for a
// communicator Split made, a hash of its parent's key, the split and the
// color.
type commKey [16]byte

func (k commKey) String() string { return hex.EncodeToString(k[:4]) }

// kSplit is the pseudo-operation of Split's round.
const kSplit opKind = 100

// opDesc is what the ranks of one round must agree on, and Split's
// per-rank arguments.
type opDesc struct {
	Kind  opKind
	Count uint64
	Type  DataType
	Op    hubOp
	Root  int
	// Split's color and key, each rank its own.
	Color, Key int
}

func (d opDesc) String() string {
	if d.Kind == kSplit {
		return "ncclCommSplit"
	}
	o := request{kind: d.Kind, count: d.Count, dtype: d.Type, peer: d.Root}
	switch d.Op {
	case hubProd:
		o.red = Prod
	case hubMax:
		o.red = Max
	case hubMin:
		o.red = Min
	case hubSumDiv:
		o.red = Avg
	}
	return o.String()
}

// agrees reports whether two ranks' descriptions of one round match.
func (d opDesc) agrees(e opDesc) bool {
	return d.Kind == e.Kind && d.Count == e.Count && d.Type == e.Type && d.Op == e.Op && d.Root == e.Root
}

// hub holds the rendezvous of the communicators whose IDs this process
// made, and answers other processes' ranks (softnet.go).
type hub struct {
	mu    sync.Mutex
	comms map[commKey]*hubComm
	owned map[commKey]bool // keys of IDs made here, and their splits
}

var theHub = &hub{comms: map[commKey]*hubComm{}, owned: map[commKey]bool{}}

// get returns key's communicator, creating it on first use.
func (h *hub) get(key commKey) *hubComm {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.comms[key]
	if c == nil {
		c = &hubComm{key: key, h: h, failedCh: make(chan struct{}), joinedCh: make(chan struct{}),
			colls: map[uint64]*round{}, p2p: map[p2pKey]*p2pSlot{}}
		h.comms[key] = c
	}
	return c
}

func (h *hub) own(key commKey) {
	h.mu.Lock()
	h.owned[key] = true
	h.mu.Unlock()
}

func (h *hub) owns(key commKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.owned[key]
}

// hubComm is one communicator's rendezvous.
type hubComm struct {
	key commKey
	h   *hub

	mu       sync.Mutex
	size     int
	joined   []bool
	nJoined  int
	joinedCh chan struct{} // closed when every rank has joined
	left     []bool
	nLeft    int
	remote   int // ranks of other processes joined and not left
	failed   *Error
	failedCh chan struct{} // closed at the first failure
	colls    map[uint64]*round
	p2p      map[p2pKey]*p2pSlot
}

// round is one collective (or Split) being met.
type round struct {
	desc    []opDesc // each rank's, once arrived
	in      [][]byte
	arrived int
	taken   int
	done    chan struct{} // closed when every rank has arrived and the result is in
	full    []byte        // the result every rank's part is taken from
	parts   [][]byte      // per-rank results, where they differ (AllToAll, Split)
}

type p2pKey struct {
	src, dst int
	seq      uint64
}

type p2pSlot struct {
	desc  opDesc
	data  []byte
	ready chan struct{} // closed when the Send has arrived
	sent  bool
}

// fail records the communicator's first failure and wakes every waiter;
// later calls return the same error.
func (c *hubComm) failLocked(e *Error) *Error {
	if c.failed == nil {
		c.failed = e
		close(c.failedCh)
	}
	return c.failed
}

func (c *hubComm) fail(e *Error) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failLocked(e)
}

// join registers rank of size and waits until every rank has joined.
func (c *hubComm) join(rank, size int, timeout time.Duration) error {
	const op = "nccl.InitRank"
	c.mu.Lock()
	if c.failed != nil {
		defer c.mu.Unlock()
		return c.failed
	}
	switch {
	case c.size == 0:
		c.size = size
		c.joined = make([]bool, size)
		c.left = make([]bool, size)
	case c.size != size:
		defer c.mu.Unlock()
		return c.failLocked(errorf(op, InvalidArgument, "soft communicator %v: rank %d says it has %d ranks, an earlier rank said %d", c.key, rank, size, c.size))
	}
	if c.joined[rank] {
		defer c.mu.Unlock()
		return c.failLocked(errorf(op, InvalidUsage, "soft communicator %v: rank %d joined twice", c.key, rank))
	}
	c.joined[rank] = true
	c.nJoined++
	if c.nJoined == c.size {
		close(c.joinedCh)
	}
	c.mu.Unlock()
	return c.await(c.joinedCh, timeout, func() *Error {
		var missing []int
		for r, j := range c.joined {
			if !j {
				missing = append(missing, r)
			}
		}
		return errorf(op, RemoteError, "soft communicator %v: %s of %d never joined within %v", c.key, rankList(missing), c.size, timeout)
	})
}

// collective is rank's part of its seq-th collective round.
func (c *hubComm) collective(rank int, seq uint64, d opDesc, in []byte, timeout time.Duration) ([]byte, error) {
	name := d.Kind.String()
	c.mu.Lock()
	if c.failed != nil {
		defer c.mu.Unlock()
		return nil, c.failed
	}
	if gone := c.goneLocked(); len(gone) > 0 {
		defer c.mu.Unlock()
		return nil, c.failLocked(errorf(name, RemoteError, "soft communicator %v: %s destroyed its communicator before collective #%d, %v", c.key, rankList(gone), seq, d))
	}
	r := c.colls[seq]
	if r == nil {
		r = &round{desc: make([]opDesc, c.size), in: make([][]byte, c.size), done: make(chan struct{})}
		c.colls[seq] = r
	}
	if r.hasArrived(rank) {
		defer c.mu.Unlock()
		return nil, c.failLocked(errorf(name, InternalError, "soft communicator %v: rank %d arrived twice at collective #%d", c.key, rank, seq))
	}
	for q := range c.size {
		if q != rank && r.hasArrived(q) && !r.desc[q].agrees(d) {
			defer c.mu.Unlock()
			return nil, c.failLocked(errorf(name, InvalidUsage, "soft communicator %v: collective #%d is %v on rank %d but %v on rank %d: every rank must issue the same operations in the same order", c.key, seq, d, rank, r.desc[q], q))
		}
	}
	if in == nil {
		in = []byte{}
	}
	r.desc[rank], r.in[rank] = d, in
	r.arrived++
	if r.arrived == c.size {
		if err := c.compute(r, seq); err != nil {
			defer c.mu.Unlock()
			return nil, c.failLocked(err)
		}
		close(r.done)
	}
	c.mu.Unlock()

	if err := c.await(r.done, timeout, func() *Error {
		var missing []int
		for q := range c.size {
			if !r.hasArrived(q) {
				missing = append(missing, q)
			}
		}
		return errorf(name, RemoteError, "soft communicator %v: %s never reached collective #%d, %v, within %v", c.key, rankList(missing), seq, d, timeout)
	}); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := r.full
	switch {
	case r.parts != nil:
		out = r.parts[rank]
	case d.Kind == kReduceScatter:
		n := len(r.full) / c.size
		out = r.full[rank*n : (rank+1)*n]
	case d.Kind == kReduce && rank != d.Root:
		out = nil
	}
	r.taken++
	if r.taken == c.size {
		delete(c.colls, seq)
	}
	return out, nil
}

// await waits for done, the communicator's failure or the timeout, when
// it fails the communicator with late's error (unless done closed in the
// meantime).
func (c *hubComm) await(done <-chan struct{}, timeout time.Duration, late func() *Error) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-c.failedCh:
		return c.failed
	case <-t.C:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-done:
		return nil
	default:
	}
	return c.failLocked(late())
}

func (r *round) hasArrived(rank int) bool { return r.in[rank] != nil }

// compute makes the round's result, once every rank's input is in.
func (c *hubComm) compute(r *round, seq uint64) *Error {
	d := r.desc[0]
	n := c.size
	for q, in := range r.in {
		want := (&request{kind: d.Kind, count: d.Count, dtype: d.Type, peer: d.Root}).inBytes(q, n)
		if d.Kind == kSplit {
			want = 0
		}
		if uint64(len(in)) != want {
			return errorf(d.Kind.String(), InternalError, "soft communicator %v: rank %d sent %d bytes for %v, want %d", c.key, q, len(in), d, want)
		}
	}
	switch d.Kind {
	case kAllReduce, kReduce, kReduceScatter:
		acc := slices.Clone(r.in[0])
		for q := 1; q < n; q++ {
			combine(d.Type, d.Op, acc, r.in[q])
		}
		finish(d.Type, d.Op, acc, n)
		r.full = acc
	case kBroadcast:
		r.full = slices.Clone(r.in[d.Root]) // the root's input is its staging memory, reused once it returns
	case kAllGather:
		r.full = slices.Concat(r.in...)
	case kAllToAll:
		part := int(d.Count) * d.Type.Size()
		r.parts = make([][]byte, n)
		for dst := range n {
			out := make([]byte, 0, part*n)
			for src := range n {
				out = append(out, r.in[src][dst*part:(dst+1)*part]...)
			}
			r.parts[dst] = out
		}
	case kSplit:
		r.parts = c.splitResult(r, seq)
	}
	return nil
}

// splitResult groups the ranks by color, orders each group by (key, rank)
// and names each group's communicator; each rank's part is its new key,
// rank and size (or the zero key for NoColor).
func (c *hubComm) splitResult(r *round, seq uint64) [][]byte {
	type member struct{ rank, key int }
	groups := map[int][]member{}
	for q, d := range r.desc {
		if d.Color != NoColor {
			groups[d.Color] = append(groups[d.Color], member{q, d.Key})
		}
	}
	parts := make([][]byte, c.size)
	for q := range parts {
		parts[q] = make([]byte, 24)
	}
	for color, ms := range groups {
		sort.Slice(ms, func(i, j int) bool {
			if ms[i].key != ms[j].key {
				return ms[i].key < ms[j].key
			}
			return ms[i].rank < ms[j].rank
		})
		child := childKey(c.key, seq, color)
		for i, m := range ms {
			copy(parts[m.rank], child[:])
			binary.LittleEndian.PutUint32(parts[m.rank][16:], uint32(i))
			binary.LittleEndian.PutUint32(parts[m.rank][20:], uint32(len(ms)))
		}
	}
	return parts
}

// childKey names the communicator of one color of the split that is
// collective #seq of parent.
func childKey(parent commKey, seq uint64, color int) commKey {
	var b [32]byte
	copy(b[:], parent[:])
	binary.LittleEndian.PutUint64(b[16:], seq)
	binary.LittleEndian.PutUint64(b[24:], uint64(int64(color)))
	sum := sha256.Sum256(b[:])
	var k commKey
	copy(k[:], sum[:])
	return k
}

// send delivers src's seq-th Send to dst; it does not wait for the Recv
// (the data stays with the rendezvous until then).
func (c *hubComm) send(src, dst int, seq uint64, d opDesc, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return c.failed
	}
	s := c.slotLocked(p2pKey{src, dst, seq})
	if s.sent {
		return c.failLocked(errorf("ncclSend", InternalError, "soft communicator %v: Send #%d from rank %d to rank %d arrived twice", c.key, seq, src, dst))
	}
	s.sent, s.desc, s.data = true, d, data
	close(s.ready)
	return nil
}

// recv waits for src's seq-th Send to dst.
func (c *hubComm) recv(src, dst int, seq uint64, d opDesc, timeout time.Duration) ([]byte, error) {
	c.mu.Lock()
	if c.failed != nil {
		defer c.mu.Unlock()
		return nil, c.failed
	}
	k := p2pKey{src, dst, seq}
	s := c.slotLocked(k)
	c.mu.Unlock()
	if err := c.await(s.ready, timeout, func() *Error {
		return errorf("ncclRecv", RemoteError, "soft communicator %v: rank %d's Recv #%d from rank %d (%v) got no Send within %v", c.key, dst, seq, src, d, timeout)
	}); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.p2p, k)
	if s.desc.Count != d.Count || s.desc.Type != d.Type {
		return nil, c.failLocked(errorf("ncclRecv", InvalidUsage, "soft communicator %v: rank %d sent %d × %v to rank %d, which receives %d × %v (Send/Recv pair #%d)", c.key, src, s.desc.Count, s.desc.Type, dst, d.Count, d.Type, seq))
	}
	return s.data, nil
}

func (c *hubComm) slotLocked(k p2pKey) *p2pSlot {
	s := c.p2p[k]
	if s == nil {
		s = &p2pSlot{ready: make(chan struct{})}
		c.p2p[k] = s
	}
	return s
}

// goneLocked lists the ranks that have left.
func (c *hubComm) goneLocked() []int {
	var gone []int
	for r, l := range c.left {
		if l {
			gone = append(gone, r)
		}
	}
	return gone
}

// leave records that rank is done (Destroy), gone (its process's
// connection closed) or aborting; the last rank out drops the rendezvous.
func (c *hubComm) leave(rank int, why string, abort bool) {
	c.mu.Lock()
	if abort {
		c.failLocked(errorf("ncclCommAbort", RemoteError, "soft communicator %v: rank %d %s", c.key, rank, why))
	}
	if rank >= 0 && rank < len(c.left) && !c.left[rank] {
		c.left[rank] = true
		c.nLeft++
		// A rank some waiter needs is gone for good.
		for seq, r := range c.colls {
			if !r.hasArrived(rank) {
				c.failLocked(errorf(r.desc[firstArrived(r)].Kind.String(), RemoteError, "soft communicator %v: rank %d %s before collective #%d", c.key, rank, why, seq))
			}
		}
	}
	last := c.nLeft == c.size && c.size > 0
	c.mu.Unlock()
	if last {
		c.h.mu.Lock()
		delete(c.h.comms, c.key)
		delete(c.h.owned, c.key)
		c.h.mu.Unlock()
	}
}

// remoteJoined counts the ranks of other processes that joined through
// this process's server and have not left.
func (c *hubComm) remoteJoined(delta int) {
	c.mu.Lock()
	c.remote += delta
	c.mu.Unlock()
}

// waitRemote waits (at most timeout) until the ranks of other processes
// have left: the process that serves the rendezvous must not exit before
// they have their last results. Ranks of this process need no wait.
func (c *hubComm) waitRemote(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for {
		c.mu.Lock()
		n := c.remote
		c.mu.Unlock()
		if n <= 0 || time.Now().After(deadline) {
			return
		}
		select {
		case <-c.failedCh:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func firstArrived(r *round) int {
	for q := range r.desc {
		if r.hasArrived(q) {
			return q
		}
	}
	return 0
}

// rankList spells ranks for messages: "rank 2", "ranks 1, 3".
func rankList(rs []int) string {
	if len(rs) == 1 {
		return fmt.Sprintf("rank %d", rs[0])
	}
	s := "ranks "
	for i, r := range rs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(r)
	}
	return s
}
