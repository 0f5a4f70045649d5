package nccl

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cugen/cugen/rt"
)

// UniqueID is an ncclUniqueId: 128 bytes that name one communicator
// being created. One rank makes it (NewUniqueID) and every rank passes it
// to InitRank; how it travels is the program's business (ShareID and
// Launch.Comm send it over TCP). Its text form is hexadecimal.
type UniqueID [128]byte

// String is the ID in hexadecimal (MarshalText's form).
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// MarshalText encodes the ID in hexadecimal.
func (id UniqueID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText decodes MarshalText's form.
func (id *UniqueID) UnmarshalText(b []byte) error {
	p, err := ParseUniqueID(string(b))
	if err == nil {
		*id = p
	}
	return err
}

// ParseUniqueID decodes an ID's hexadecimal form.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	if len(s) != 2*len(id) {
		return id, errorf("nccl.ParseUniqueID", InvalidArgument, "%d hex digits, want %d", len(s), 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, errorf("nccl.ParseUniqueID", InvalidArgument, "%v", err)
	}
	return id, nil
}

// Options configure a communicator. The zero value (or nil) is NCCL's
// defaults, which NCCL_* environment variables adjust as usual.
type Options struct {
	// CommName names the communicator in NCCL's logs (ncclConfig_t.commName).
	CommName string
	// NetName picks the network plugin or transport (ncclConfig_t.netName),
	// "IB" or "Socket" say.
	NetName string
	// MinCTAs and MaxCTAs bound the CTAs (channels) NCCL uses; 0 leaves
	// NCCL's choice.
	MinCTAs, MaxCTAs int
	// SplitShare makes communicators split from this one share its
	// resources (ncclConfig_t.splitShare).
	SplitShare bool
	// NonBlocking creates a nonblocking communicator (ncclConfig_t.blocking
	// = 0): InitRank's context then also bounds NCCL's own initialisation,
	// which is aborted when the context ends, and every call waits for
	// ncclInProgress to pass before it returns. NCCL runs each operation's
	// launch on a thread of its own in this mode: it costs tens of
	// microseconds per call. A blocking communicator (the default) is what
	// NCCL is fastest with; its InitRank honours the context by returning
	// when it ends, leaving NCCL's initialisation to finish (or fail) in the
	// background, where it is then aborted.
	NonBlocking bool
	// PeerTimeout bounds, in the soft engine, how long a rank waits for
	// its peers: to join (InitRank, Split) and in every operation. An
	// operation whose peers do not come in time fails the communicator
	// with RemoteError (see Comm.AsyncError); NCCL would hang. 0 means 2
	// minutes. The NCCL engine ignores it.
	PeerTimeout time.Duration
}

func (o *Options) peerTimeout() time.Duration {
	if o == nil || o.PeerTimeout <= 0 {
		return 2 * time.Minute
	}
	return o.PeerTimeout
}

// NoColor, as Split's color, leaves the calling rank out of every new
// communicator (NCCL_SPLIT_NOCOLOR): Split returns nil for it.
const NoColor = -1

// Comm is one rank of an NCCL communicator, bound to one CUDA context (a
// device's primary context, for NCCL) of the rt backend that created it:
// NCCL for rt/cgo's contexts, the soft engine for rt/soft's (see the
// package documentation). Operations are the package's functions
// (AllReduce, Send, ...), queued on streams of that context.
//
// A Comm is safe for concurrent use as NCCL is: operations on one
// communicator must be issued in the same order on every rank, and from
// one goroutine at a time.
type Comm struct {
	ctx        *rt.Context
	rank, size int
	impl       commImpl

	// pending is set while the communicator is created in a group (InitRank
	// or Split between GroupStart and GroupEnd): it is usable after GroupEnd.
	pending atomic.Bool
	closed  atomic.Bool
	initErr error // why creating it in a group failed (set at GroupEnd)

	mu  sync.Mutex
	ops map[RedOp]DataType // operators NewPreMulSum made, by handle

	// smMajor is the device's compute capability's major number, 0 until
	// an fp8 reduction first asks: the operations ask the driver nothing.
	smMajor atomic.Int32
}

// major is c's device's compute capability's major number (0 if the
// driver cannot say), asked once.
func (c *Comm) major() int {
	if m := c.smMajor.Load(); m != 0 {
		return int(m)
	}
	m, _, err := c.ctx.Device().ComputeCapability()
	if err != nil {
		return 0
	}
	c.smMajor.Store(int32(m))
	return m
}

// commImpl is one engine's communicator rank.
type commImpl interface {
	// do queues the checked operation o on o.stream; in a group, g is the
	// calling thread's group and the engine may defer o to its end. o is
	// a value: the NCCL engine's hot path allocates nothing.
	do(o request, g *groupState) error
	// split is ncclCommSplit; in a group the new communicator is finished
	// at GroupEnd (through g).
	split(color, key int, opt *Options, g *groupState) (commImpl, error)
	destroy() error
	abort() error
	asyncError() error
	preMulSum(dt DataType, scalar []byte) (RedOp, error)
	destroyOp(op RedOp) error
	// devCommAll creates the device communicators of ranks (this one
	// first, all of this engine) in one group.
	devCommAll(ranks []commImpl, req *DevCommRequirements) ([]DevComm, error)
	destroyDevComm(d *DevComm) error
	memAlloc(size uint64) (rt.DevPtr, error)
	memFree(p rt.DevPtr) error
	registerWindow(p rt.DevPtr, size uint64, g *groupState) (windowImpl, error)
	// rankSize is the rank's index and the communicator's size.
	rankSize() (rank, size int)
	// groupDone, for a communicator created in a group, reports whether
	// its creation succeeded, once the group has ended.
	groupDone() error
	// describe names the engine and library, for Comm.String and errors.
	describe() string
	supports(dt DataType) error
}

// engine is one implementation of NCCL: the library itself, for the
// "cuda" backend, or the soft engine.
type engine interface {
	newID(host string) (UniqueID, error)
	initRank(ctx context.Context, dev *rt.Context, id UniqueID, rank, nranks int, opt *Options, g *groupState) (commImpl, error)
	initAll(devs []*rt.Context, opt *Options) ([]commImpl, error)
}

// libEngine opens NCCL for the "cuda" backend: set by the cgo build
// (nccl_cgo.go); without cgo it fails.
var libEngine func() (engine, error)

// engineFor is the engine that serves driver d's contexts.
func engineFor(op string, d rt.Driver) (engine, error) {
	switch d.Name() {
	case "soft":
		return softEngine{}, nil
	case "cuda":
		e, err := libEngine()
		if err != nil {
			return nil, &Error{Op: op, Code: SystemError, Err: err}
		}
		return e, nil
	}
	return nil, errorf(op, InvalidUsage, "backend %q has no collectives: rt/nccl serves rt/cgo's contexts (through NCCL) and rt/soft's", d.Name())
}

// NewUniqueID makes the ID of a new communicator of driver d's contexts:
// ncclGetUniqueId for the GPU backend, which loads NCCL; for rt/soft an ID
// of the soft engine, whose rendezvous runs in this process and answers
// other processes on the loopback interface (see the package
// documentation).
func NewUniqueID(d rt.Driver) (UniqueID, error) {
	e, err := engineFor("nccl.NewUniqueID", d)
	if err != nil {
		return UniqueID{}, err
	}
	return e.newID("")
}

// InitRank creates rank rank of the nranks-rank communicator that id
// names, on dev (ncclCommInitRankConfig): every rank calls it, each with
// its own context, and it returns once all have. ctx bounds the wait (see
// Options.NonBlocking for what it means to NCCL). Between GroupStart and
// GroupEnd it returns at once and the communicator is usable after
// GroupEnd: that is how one goroutine creates several ranks (InitAll does
// it for a process's devices).
//
// For NCCL, dev must be its device's primary context: NCCL works through
// the CUDA runtime, which uses primary contexts.
func InitRank(ctx context.Context, dev *rt.Context, id UniqueID, rank, nranks int, opt *Options) (*Comm, error) {
	const op = "nccl.InitRank"
	if dev == nil {
		return nil, errorf(op, InvalidArgument, "nil context")
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, errorf(op, InvalidArgument, "rank %d of %d", rank, nranks)
	}
	if err := checkOptions(op, opt); err != nil {
		return nil, err
	}
	e, err := engineFor(op, dev.Driver())
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: op, Code: InvalidUsage, Detail: fmt.Sprintf("rank %d of %d", rank, nranks), Err: err}
	}
	g := currentGroup()
	impl, err := e.initRank(ctx, dev, id, rank, nranks, opt, g)
	if err != nil {
		return nil, err
	}
	c := &Comm{ctx: dev, rank: rank, size: nranks, impl: impl}
	if g != nil {
		c.pending.Store(true)
		g.created = append(g.created, c)
	}
	return c, nil
}

// InitAll creates a communicator of len(devs) ranks in this process,
// rank i on devs[i] (ncclCommInitAll, but on the contexts given). All the
// contexts must be of one driver and, for NCCL, their devices' primary
// contexts, each device once.
func InitAll(devs []*rt.Context, opt *Options) ([]*Comm, error) {
	const op = "nccl.InitAll"
	if len(devs) == 0 {
		return nil, errorf(op, InvalidArgument, "no contexts")
	}
	if err := checkOptions(op, opt); err != nil {
		return nil, err
	}
	if currentGroup() != nil {
		return nil, errorf(op, InvalidUsage, "called between GroupStart and GroupEnd (InitAll is a group of its own)")
	}
	for i, d := range devs {
		if d == nil {
			return nil, errorf(op, InvalidArgument, "context %d is nil", i)
		}
		if d.Driver() != devs[0].Driver() {
			return nil, errorf(op, InvalidArgument, "context %d is of backend %s, context 0 of %s: a communicator spans one backend", i, d.Driver().Name(), devs[0].Driver().Name())
		}
		for j := range i {
			if devs[j].Device().Ordinal() == d.Device().Ordinal() {
				return nil, errorf(op, InvalidArgument, "contexts %d and %d are both on device %d: NCCL gives each rank a device of its own", j, i, d.Device().Ordinal())
			}
		}
	}
	e, err := engineFor(op, devs[0].Driver())
	if err != nil {
		return nil, err
	}
	impls, err := e.initAll(devs, opt)
	if err != nil {
		return nil, err
	}
	comms := make([]*Comm, len(devs))
	for i, impl := range impls {
		comms[i] = &Comm{ctx: devs[i], rank: i, size: len(devs), impl: impl}
	}
	return comms, nil
}

func checkOptions(op string, opt *Options) error {
	if opt == nil {
		return nil
	}
	if opt.MinCTAs < 0 || opt.MaxCTAs < 0 || opt.MaxCTAs != 0 && opt.MinCTAs > opt.MaxCTAs {
		return errorf(op, InvalidArgument, "MinCTAs %d, MaxCTAs %d", opt.MinCTAs, opt.MaxCTAs)
	}
	return nil
}

// Rank is this rank's index in the communicator.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Comm) Size() int { return c.size }

// Context is the CUDA context the rank works in: its buffers and streams
// must be that context's.
func (c *Comm) Context() *rt.Context { return c.ctx }

// Engine names what runs the communicator: "NCCL 2.28.3
// (/usr/lib/x86_64-linux-gnu/libnccl.so.2)", or "soft".
func (c *Comm) Engine() string {
	if c.impl == nil {
		return "uninitialized"
	}
	return c.impl.describe()
}

func (c *Comm) String() string {
	return fmt.Sprintf("rank %d of %d on %v (%s)", c.rank, c.size, c.ctx.Device(), c.Engine())
}

// usable refuses a nil, destroyed or not yet created communicator.
func (c *Comm) usable(op string) error {
	switch {
	case c == nil || c.impl == nil && !c.pending.Load() && c.initErr == nil:
		return errorf(op, InvalidArgument, "nil communicator")
	case c.closed.Load():
		return errorf(op, InvalidUsage, "communicator %v was destroyed", c)
	case c.pending.Load():
		return errorf(op, InvalidUsage, "communicator rank %d of %d is being created in a group: use it after GroupEnd", c.rank, c.size)
	case c.initErr != nil:
		return &Error{Op: op, Code: CodeOf(c.initErr), Detail: "creating the communicator failed at GroupEnd", Err: c.initErr}
	}
	return nil
}

// Split creates communicators from c's ranks (ncclCommSplit): the ranks
// that pass the same color form one, ordered by key and then by their
// rank in c. Every rank of c calls it; a rank that passes NoColor gets
// nil. opt nil inherits c's options. Between GroupStart and GroupEnd (how
// one goroutine splits several ranks) it returns at once and the new
// communicator, whose Rank and Size are known then, is usable after
// GroupEnd.
func (c *Comm) Split(color, key int, opt *Options) (*Comm, error) {
	const op = "ncclCommSplit"
	if err := c.usable(op); err != nil {
		return nil, err
	}
	if color < NoColor {
		return nil, errorf(op, InvalidArgument, "color %d (colors are ≥ 0, or NoColor)", color)
	}
	if err := checkOptions(op, opt); err != nil {
		return nil, err
	}
	g := currentGroup()
	impl, err := c.impl.split(color, key, opt, g)
	if err != nil || impl == nil {
		return nil, err
	}
	nc := &Comm{ctx: c.ctx, rank: -1, size: -1, impl: impl}
	if g != nil {
		nc.pending.Store(true)
		g.created = append(g.created, nc)
	} else {
		nc.rank, nc.size = impl.rankSize()
	}
	return nc, nil
}

// Destroy frees the rank's resources once its queued work is done
// (ncclCommFinalize, then ncclCommDestroy). Ranks of one communicator
// that one goroutine drives must be destroyed together: DestroyAll.
func (c *Comm) Destroy() error { return DestroyAll(c) }

// DestroyAll destroys several ranks at once, as one goroutine that drives
// them must (each rank's finalisation waits for its peers').
func DestroyAll(comms ...*Comm) error {
	var errs []error
	var todo []*Comm
	for _, c := range comms {
		if c == nil || c.impl == nil {
			continue
		}
		if c.closed.Swap(true) {
			errs = append(errs, errorf("ncclCommDestroy", InvalidUsage, "communicator %v destroyed twice", c))
			continue
		}
		todo = append(todo, c)
	}
	if len(todo) == 1 {
		return errors.Join(append(errs, todo[0].impl.destroy())...)
	}
	// Each rank's finalisation may wait for the others': destroy them
	// concurrently.
	out := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, c := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = c.impl.destroy()
		}()
	}
	wg.Wait()
	return errors.Join(append(errs, out...)...)
}

// Abort stops the rank's work in progress and frees it (ncclCommAbort):
// what to do with a communicator whose peer failed or hangs. It may be
// called from any goroutine, also while another is blocked in a call on c.
func (c *Comm) Abort() error {
	if c == nil || c.impl == nil {
		return errorf("ncclCommAbort", InvalidArgument, "nil communicator")
	}
	if c.closed.Swap(true) {
		return errorf("ncclCommAbort", InvalidUsage, "communicator %v was already destroyed", c)
	}
	return c.impl.abort()
}

// AsyncError reports an error that the communicator's asynchronous work
// met (ncclCommGetAsyncError), with NCCL's message for it
// (ncclGetLastError): nil while all is well. A communicator with an error
// is unusable: Abort it.
func (c *Comm) AsyncError() error {
	if err := c.usable("ncclCommGetAsyncError"); err != nil {
		return err
	}
	return c.impl.asyncError()
}

// NewPreMulSum makes a reduction operator for c and T that multiplies
// each rank's input by scalar, that rank's own, before summing
// (ncclRedOpCreatePreMulSum with the scalar in host memory). Destroy it
// with c.DestroyOp; it is valid only on c, with T.
func NewPreMulSum[T Elem](c *Comm, scalar T) (RedOp, error) {
	const op = "ncclRedOpCreatePreMulSum"
	if err := c.usable(op); err != nil {
		return 0, err
	}
	dt := TypeOf[T]()
	if err := c.impl.supports(dt); err != nil {
		return 0, err
	}
	b := make([]byte, dt.Size())
	putElem(b, scalar)
	r, err := c.impl.preMulSum(dt, b)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	if c.ops == nil {
		c.ops = map[RedOp]DataType{}
	}
	c.ops[r] = dt
	c.mu.Unlock()
	return r, nil
}

// DestroyOp destroys an operator NewPreMulSum made for c
// (ncclRedOpDestroy).
func (c *Comm) DestroyOp(op RedOp) error {
	const name = "ncclRedOpDestroy"
	if err := c.usable(name); err != nil {
		return err
	}
	c.mu.Lock()
	_, ok := c.ops[op]
	delete(c.ops, op)
	c.mu.Unlock()
	if !ok {
		return errorf(name, InvalidArgument, "operator %v was not made by NewPreMulSum for %v", op, c)
	}
	return c.impl.destroyOp(op)
}

// opType checks that op may reduce dt on c and returns the data type a
// created operator was made for.
func (c *Comm) checkOp(name string, op RedOp, dt DataType) error {
	if op >= Sum && op < numOps {
		return nil
	}
	c.mu.Lock()
	odt, ok := c.ops[op]
	c.mu.Unlock()
	switch {
	case !ok:
		return errorf(name, InvalidArgument, "reduction %d is neither a built-in one nor an operator NewPreMulSum made for %v", int32(op), c)
	case odt != dt:
		return errorf(name, InvalidArgument, "operator %v was made for %v, not %v", op, odt, dt)
	}
	return nil
}
