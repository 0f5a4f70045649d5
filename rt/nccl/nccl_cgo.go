//go:build cgo

package nccl

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The NCCL engine: the library itself, for rt/cgo's contexts.

// ncclLib is the loaded libnccl.so.2.
type ncclLib struct {
	path    string
	version int
}

var (
	libOnce sync.Once
	theLib  *ncclLib
	libErr  error
)

func init() {
	libEngine = func() (engine, error) {
		libOnce.Do(func() { theLib, libErr = openLib() })
		if libErr != nil {
			return nil, libErr
		}
		return theLib, nil
	}
}

// openLib loads the first of libCandidates that opens.
func openLib() (*ncclLib, error) {
	var tried []string
	var msg [1024]C.char
	for _, p := range libCandidates() {
		cp := C.CString(p)
		rc := C.cn_open(cp, &msg[0], C.size_t(len(msg)))
		C.free(unsafe.Pointer(cp))
		if rc != 0 {
			tried = append(tried, fmt.Sprintf("%s (%s)", p, C.GoString(&msg[0])))
			continue
		}
		var v C.int
		C.cn_version(&v)
		l := &ncclLib{path: p, version: int(v)}
		if l.version < minVersion {
			return nil, fmt.Errorf("rt/nccl: %s is NCCL %s; rt/nccl needs %s or later (set %s to a newer libnccl.so.2)", p, versionString(l.version), versionString(minVersion), EnvLib)
		}
		return l, nil
	}
	return nil, fmt.Errorf("rt/nccl: no usable libnccl.so.2; tried %s. Install NCCL (apt install libnccl2, or pip install nvidia-nccl-cu12) or set %s to the library's path", strings.Join(tried, "; "), EnvLib)
}

func (l *ncclLib) describe() string {
	return fmt.Sprintf("NCCL %s (%s)", versionString(l.version), l.path)
}

// check turns a cn_* result into nil or an *Error for op on comm (0: none).
func (l *ncclLib) check(op string, rc C.int, comm C.uintptr_t) error {
	switch {
	case rc == 0:
		return nil
	case rc&C.CN_CUDA_FAILED != 0:
		code := rt.Result(rc & 0xffff)
		return &Error{Op: op, Code: UnhandledCudaError, Detail: "making the rank's context current failed (is it a live context?)",
			Err: &rt.Error{Op: "cuCtxPushCurrent/cuCtxSetCurrent", Code: code}}
	case rc&C.CN_MISSING != 0:
		return errorf(op, InvalidUsage, "the loaded %s does not have %s", l.describe(), op)
	}
	e := &Error{Op: op, Code: Result(rc)}
	if m := C.cn_last_error(comm); m != nil {
		e.Message = strings.TrimSpace(C.GoString(m))
	}
	return e
}

// cconfig is opt as a cn_config, in C memory (as are its strings) until free.
type cconfig struct {
	c *C.cn_config
}

func newCConfig(opt *Options, blocking bool) *cconfig {
	c := (*C.cn_config)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cn_config{}))))
	c.blocking = 1
	if !blocking {
		c.blocking = 0
	}
	if opt != nil {
		c.min_ctas, c.max_ctas = C.int(opt.MinCTAs), C.int(opt.MaxCTAs)
		if opt.SplitShare {
			c.split_share = 1
		}
		if opt.NetName != "" {
			c.net_name = C.CString(opt.NetName)
		}
		if opt.CommName != "" {
			c.comm_name = C.CString(opt.CommName)
		}
	}
	return &cconfig{c}
}

func (cc *cconfig) free() {
	C.free(unsafe.Pointer(cc.c.net_name))
	C.free(unsafe.Pointer(cc.c.comm_name))
	C.free(unsafe.Pointer(cc.c))
}

func (l *ncclLib) newID(string) (UniqueID, error) {
	var id UniqueID
	if err := l.check("ncclGetUniqueId", C.cn_get_unique_id(unsafe.Pointer(&id[0])), 0); err != nil {
		return id, err
	}
	return id, nil
}

// ncclComm is one rank of an NCCL communicator.
type ncclComm struct {
	lib        *ncclLib
	ctx        *rt.Context
	h          C.uintptr_t
	slot       *C.uintptr_t // where NCCL writes h, for a communicator created in a group
	rank, size int
	blocking   bool
	opt        *Options
}

// setCurrent is cuCtxSetCurrent on the calling thread, through the
// libcuda.so.1 the shim loaded: how the binding tests give a thread a
// caller's own context.
func setCurrent(h rt.CtxHandle) error {
	if rc := C.cn_set_current(C.uintptr_t(h)); rc != 0 {
		return &rt.Error{Op: "cuCtxSetCurrent", Code: rt.Result(rc)}
	}
	return nil
}

func ctxHandle(c *rt.Context) C.uintptr_t { return C.uintptr_t(c.Handle()) }

// checkDevice refuses what NCCL cannot work in.
func checkDevice(op string, dev *rt.Context) error {
	if !dev.IsPrimary() {
		return errorf(op, InvalidUsage, "%v is not its device's primary context: NCCL works through the CUDA runtime, which uses primary contexts (use Device.Primary)", dev)
	}
	return nil
}

func newSlot() *C.uintptr_t {
	p := (*C.uintptr_t)(C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0)))))
	*p = 0
	return p
}

func (l *ncclLib) initRank(ctx context.Context, dev *rt.Context, id UniqueID, rank, nranks int, opt *Options, g *groupState) (commImpl, error) {
	const op = "ncclCommInitRankConfig"
	if isSoftID(id) {
		return nil, errorf(op, InvalidArgument, "the UniqueID is a soft one (made by NewUniqueID for an rt/soft driver), and %v is a GPU context", dev)
	}
	if err := checkDevice(op, dev); err != nil {
		return nil, err
	}
	nc := &ncclComm{lib: l, ctx: dev, rank: rank, size: nranks, blocking: opt == nil || !opt.NonBlocking, opt: opt, slot: newSlot()}
	cfg := newCConfig(opt, nc.blocking)
	call := func() error {
		defer cfg.free()
		return l.check(op, C.cn_init_rank(ctxHandle(dev), nc.slot, C.int(nranks), unsafe.Pointer(&id[0]), C.int(rank), cfg.c), 0)
	}
	if g != nil {
		if err := l.joinGroup(g, nc); err != nil {
			return nil, err
		}
		if err := call(); err != nil && CodeOf(err) != InProgress {
			return nil, err
		}
		return nc, nil
	}
	if nc.blocking && ctx.Done() != nil {
		// NCCL's blocking initialisation cannot be interrupted: wait for it
		// as long as ctx lasts, and clean up after it if it outlives ctx.
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			go func() {
				if <-done == nil {
					nc.h = *nc.slot
					nc.abort()
				}
			}()
			return nil, &Error{Op: op, Code: RemoteError, Detail: fmt.Sprintf("rank %d of %d: not every rank joined before the context ended", rank, nranks), Err: ctx.Err()}
		}
	} else if err := call(); err != nil && CodeOf(err) != InProgress {
		return nil, err
	}
	nc.h = *nc.slot
	if !nc.blocking {
		if err := nc.wait(ctx, op); err != nil {
			nc.abort()
			return nil, err
		}
	}
	return nc, nil
}

func (l *ncclLib) initAll(devs []*rt.Context, opt *Options) ([]commImpl, error) {
	const op = "ncclCommInitAll"
	for _, d := range devs {
		if err := checkDevice(op, d); err != nil {
			return nil, err
		}
	}
	id, err := l.newID("")
	if err != nil {
		return nil, err
	}
	n := len(devs)
	ctxs := unsafe.Slice((*C.uintptr_t)(C.malloc(C.size_t(n)*8)), n)
	comms := unsafe.Slice((*C.uintptr_t)(C.malloc(C.size_t(n)*8)), n)
	defer C.free(unsafe.Pointer(&ctxs[0]))
	defer C.free(unsafe.Pointer(&comms[0]))
	for i, d := range devs {
		ctxs[i], comms[i] = ctxHandle(d), 0
	}
	blocking := opt == nil || !opt.NonBlocking
	cfg := newCConfig(opt, blocking)
	defer cfg.free()
	if err := l.check(op, C.cn_init_all(C.int(n), &ctxs[0], &comms[0], unsafe.Pointer(&id[0]), cfg.c), 0); err != nil && CodeOf(err) != InProgress {
		return nil, err
	}
	out := make([]commImpl, n)
	var errs []error
	for i, d := range devs {
		nc := &ncclComm{lib: l, ctx: d, h: comms[i], rank: i, size: n, blocking: blocking, opt: opt}
		if !blocking {
			errs = append(errs, nc.wait(context.Background(), op))
		}
		out[i] = nc
	}
	if err := errors.Join(errs...); err != nil {
		for _, c := range out {
			c.abort()
		}
		return nil, err
	}
	return out, nil
}

// wait polls a nonblocking communicator until its last call is no longer
// in progress (or ctx ends), and returns that call's outcome.
func (nc *ncclComm) wait(ctx context.Context, op string) error {
	pause := time.Microsecond
	for i := 0; ; i++ {
		var r C.int
		if rc := C.cn_async_error(nc.h, &r); rc != 0 {
			return nc.lib.check("ncclCommGetAsyncError", rc, nc.h)
		}
		switch Result(r) {
		case Success:
			return nil
		case InProgress:
		default:
			return nc.lib.check(op, r, nc.h)
		}
		if err := ctx.Err(); err != nil {
			return &Error{Op: op, Code: InProgress, Detail: fmt.Sprintf("rank %d of %d: still in progress when the context ended", nc.rank, nc.size), Err: err}
		}
		if i > 100 {
			time.Sleep(pause)
			pause = min(2*pause, time.Millisecond)
		} else {
			runtime.Gosched()
		}
	}
}

// ncclGroup is an rt/nccl group's NCCL part.
type ncclGroup struct {
	lib   *ncclLib
	waits []*ncclComm // communicators GroupEnd finishes or waits for
}

// joinGroup makes g an NCCL group (ncclGroupStart, at its first NCCL call)
// and remembers the communicators GroupEnd must finish or wait for.
func (l *ncclLib) joinGroup(g *groupState, nc *ncclComm) error {
	if !g.nccl {
		if err := l.check("ncclGroupStart", C.cn_group_start(), 0); err != nil {
			return err
		}
		st := &ncclGroup{lib: l}
		g.nccl, g.ncclState, g.ncclEnd = true, st, st.end
	}
	st := g.ncclState.(*ncclGroup)
	if !nc.blocking || nc.h == 0 {
		st.waits = append(st.waits, nc)
	}
	return nil
}

func (st *ncclGroup) end() error {
	err := st.lib.check("ncclGroupEnd", C.cn_group_end(), 0)
	if err != nil && CodeOf(err) != InProgress {
		return err
	}
	var errs []error
	for _, c := range st.waits {
		if c.h == 0 && c.slot != nil {
			c.h = *c.slot
		}
		if c.h != 0 && !c.blocking {
			errs = append(errs, c.wait(context.Background(), "ncclGroupEnd"))
		}
	}
	return errors.Join(errs...)
}

func (nc *ncclComm) rankSize() (int, int) { return nc.rank, nc.size }
func (nc *ncclComm) describe() string     { return nc.lib.describe() }

// groupDone finishes a communicator made in a group: its handle, rank
// and size are NCCL's now.
func (nc *ncclComm) groupDone() error {
	if nc.h == 0 && nc.slot != nil {
		nc.h = *nc.slot
	}
	if nc.h == 0 {
		return errorf("ncclGroupEnd", InternalError, "NCCL made no communicator")
	}
	if err := nc.asyncError(); err != nil {
		return err
	}
	var rank, count, dev C.int
	if err := nc.lib.check("ncclCommUserRank", C.cn_comm_info(nc.h, &rank, &count, &dev), nc.h); err != nil {
		return err
	}
	nc.rank, nc.size = int(rank), int(count)
	return nil
}

func (nc *ncclComm) supports(dt DataType) error {
	if dt.fp8() && nc.lib.version < 22400 {
		return errorf("nccl", InvalidArgument, "%v needs NCCL 2.24 or later, and the loaded one is %s", dt, nc.lib.describe())
	}
	return nil
}

func (nc *ncclComm) do(o request, g *groupState) error {
	name := o.kind.String()
	if g != nil {
		if err := nc.lib.joinGroup(g, nc); err != nil {
			return err
		}
	}
	rc := C.cn_op(ctxHandle(nc.ctx), C.int(o.kind), C.uintptr_t(o.send), C.uintptr_t(o.recv), C.size_t(o.count),
		C.int(o.dtype), C.int(o.red), C.int(o.peer), nc.h, C.uintptr_t(o.stream.Handle()))
	if rc == 0 {
		return nil
	}
	err := nc.lib.check(name, rc, nc.h)
	if CodeOf(err) == InProgress && g == nil {
		return nc.wait(context.Background(), name)
	}
	if CodeOf(err) == InProgress {
		return nil
	}
	return err
}

func (nc *ncclComm) split(color, key int, opt *Options, g *groupState) (commImpl, error) {
	const op = "ncclCommSplit"
	// opt nil passes no configuration: NCCL copies the parent's.
	blocking, inherit := nc.blocking, opt == nil
	if inherit {
		opt = nc.opt
	} else {
		blocking = !opt.NonBlocking
	}
	child := &ncclComm{lib: nc.lib, ctx: nc.ctx, blocking: blocking, opt: opt, slot: newSlot(), rank: -1, size: -1}
	var cfg *cconfig
	var cp *C.cn_config
	if !inherit {
		cfg = newCConfig(opt, blocking)
		defer cfg.free()
		cp = cfg.c
	}
	if g != nil {
		if err := nc.lib.joinGroup(g, child); err != nil {
			return nil, err
		}
	}
	err := nc.lib.check(op, C.cn_split(ctxHandle(nc.ctx), nc.h, C.int(color), C.int(key), child.slot, cp), nc.h)
	if err != nil && CodeOf(err) != InProgress {
		return nil, err
	}
	if color == NoColor || g != nil {
		if color == NoColor {
			return nil, nil
		}
		return child, nil
	}
	if !nc.blocking {
		if err := nc.wait(context.Background(), op); err != nil {
			return nil, err
		}
	}
	if err := child.groupDone(); err != nil {
		return nil, err
	}
	if !child.blocking {
		if err := child.wait(context.Background(), op); err != nil {
			return nil, err
		}
	}
	return child, nil
}

func (nc *ncclComm) destroy() error {
	defer nc.freeSlot()
	if !nc.blocking {
		err := nc.lib.check("ncclCommFinalize", C.cn_finalize(ctxHandle(nc.ctx), nc.h), nc.h)
		if err != nil && CodeOf(err) != InProgress {
			return err
		}
		if err := nc.wait(context.Background(), "ncclCommFinalize"); err != nil {
			return err
		}
	}
	return nc.lib.check("ncclCommDestroy", C.cn_destroy(ctxHandle(nc.ctx), nc.h), 0)
}

func (nc *ncclComm) abort() error {
	defer nc.freeSlot()
	if nc.h == 0 {
		return nil
	}
	return nc.lib.check("ncclCommAbort", C.cn_abort(ctxHandle(nc.ctx), nc.h), 0)
}

func (nc *ncclComm) freeSlot() {
	if nc.slot != nil {
		C.free(unsafe.Pointer(nc.slot))
		nc.slot = nil
	}
}

func (nc *ncclComm) asyncError() error {
	var r C.int
	if err := nc.lib.check("ncclCommGetAsyncError", C.cn_async_error(nc.h, &r), nc.h); err != nil {
		return err
	}
	if r == 0 || Result(r) == InProgress {
		return nil
	}
	return nc.lib.check("ncclCommGetAsyncError", r, nc.h)
}

func (nc *ncclComm) preMulSum(dt DataType, scalar []byte) (RedOp, error) {
	var op C.int
	if err := nc.lib.check("ncclRedOpCreatePreMulSum", C.cn_premulsum(ctxHandle(nc.ctx), &op, unsafe.Pointer(&scalar[0]), C.int(dt), nc.h), nc.h); err != nil {
		return 0, err
	}
	return RedOp(op), nil
}

func (nc *ncclComm) destroyOp(op RedOp) error {
	return nc.lib.check("ncclRedOpDestroy", C.cn_redop_destroy(ctxHandle(nc.ctx), C.int(op), nc.h), nc.h)
}

func (nc *ncclComm) devCommAll(ranks []commImpl, req *DevCommRequirements) ([]DevComm, error) {
	const op = "ncclDevCommCreate"
	if v := nc.lib.version; v < devCommABIMin || v > devCommABIMax {
		return nil, errorf(op, InvalidUsage, "rt/nccl's DevComm is NCCL 2.28.3's ncclDevComm (%d bytes), which NCCL 2.28.3 to 2.28.6 create; the loaded %s lays it out otherwise", DevCommSize, nc.lib.describe())
	}
	n := len(ranks)
	ctxs := unsafe.Slice((*C.uintptr_t)(C.malloc(C.size_t(n)*16)), 2*n)
	defer C.free(unsafe.Pointer(&ctxs[0]))
	for i, r := range ranks {
		c := r.(*ncclComm)
		ctxs[i], ctxs[n+i] = ctxHandle(c.ctx), c.h
	}
	out := make([]DevComm, n)
	rc := C.cn_devcomm_create_all(C.int(n), &ctxs[0], &ctxs[n], C.int(req.LsaBarrierCount), unsafe.Pointer(&out[0]))
	if err := nc.lib.check(op, rc, nc.h); err != nil {
		return nil, err
	}
	return out, nil
}

func (nc *ncclComm) destroyDevComm(d *DevComm) error {
	return nc.lib.check("ncclDevCommDestroy", C.cn_devcomm_destroy(ctxHandle(nc.ctx), nc.h, unsafe.Pointer(d)), nc.h)
}

func (nc *ncclComm) memAlloc(size uint64) (rt.DevPtr, error) {
	var p C.uintptr_t
	if err := nc.lib.check("ncclMemAlloc", C.cn_mem_alloc(ctxHandle(nc.ctx), &p, C.size_t(size)), 0); err != nil {
		return 0, err
	}
	return rt.DevPtr(p), nil
}

func (nc *ncclComm) memFree(p rt.DevPtr) error {
	return nc.lib.check("ncclMemFree", C.cn_mem_free(ctxHandle(nc.ctx), C.uintptr_t(p)), 0)
}

// ncclWindow is a registered window; NCCL writes its handle into slot (C
// memory), at once or at the end of the group it was registered in.
type ncclWindow struct {
	nc   *ncclComm
	slot *C.uintptr_t
}

// ncclWinCollSymmetric is NCCL_WIN_COLL_SYMMETRIC.
const ncclWinCollSymmetric = 1

func (nc *ncclComm) registerWindow(p rt.DevPtr, size uint64, g *groupState) (windowImpl, error) {
	const op = "ncclCommWindowRegister"
	if g != nil {
		if err := nc.lib.joinGroup(g, nc); err != nil {
			return nil, err
		}
	}
	w := &ncclWindow{nc: nc, slot: newSlot()}
	if err := nc.lib.check(op, C.cn_window_register(ctxHandle(nc.ctx), nc.h, C.uintptr_t(p), C.size_t(size), w.slot, ncclWinCollSymmetric), nc.h); err != nil && CodeOf(err) != InProgress {
		C.free(unsafe.Pointer(w.slot))
		return nil, err
	}
	if g == nil {
		if _, err := w.handle(); err != nil {
			C.free(unsafe.Pointer(w.slot))
			return nil, err
		}
	}
	return w, nil
}

func (w *ncclWindow) handle() (uintptr, error) {
	if w.slot == nil {
		return 0, errorf("ncclCommWindowRegister", InvalidUsage, "the window was deregistered")
	}
	if h := *w.slot; h != 0 {
		return uintptr(h), nil
	}
	return 0, errorf("ncclCommWindowRegister", InvalidUsage, "NCCL made no window (%s has no symmetric memory support on this communicator: 2.28.3 needs two or more ranks on one node with direct peer access, and CUDA VMM)", w.nc.lib.describe())
}

func (w *ncclWindow) deregister() error {
	if w.slot == nil {
		return errorf("ncclCommWindowDeregister", InvalidUsage, "the window was deregistered")
	}
	h := *w.slot
	C.free(unsafe.Pointer(w.slot))
	w.slot = nil
	if h == 0 {
		return nil
	}
	return w.nc.lib.check("ncclCommWindowDeregister", C.cn_window_deregister(ctxHandle(w.nc.ctx), w.nc.h, C.uintptr_t(h)), w.nc.h)
}

// devCommABI22807 is the range of NCCL versions whose ncclDevComm is 200
// bytes (GIN's fields added) and which make one for a one-rank
// communicator: rt/nccl's DevComm is not that layout, so only the tests
// create one, through devCommBytes.
const devCommABI22807Min, devCommABI22807Max = 22807, 22809

// devCommBytes creates c's device communicator in NCCL 2.28.7 to 2.28.9's
// layout and returns its bytes, for the GPU tests (the first 24 bytes are
// DevComm's description fields); destroyDevCommBytes destroys it.
func devCommBytes(c *Comm, lsaBarriers int) ([]byte, error) {
	const op = "ncclDevCommCreate"
	if err := c.usable(op); err != nil {
		return nil, err
	}
	nc, ok := c.impl.(*ncclComm)
	if !ok {
		return nil, errorf(op, InvalidUsage, "not an NCCL communicator")
	}
	if v := nc.lib.version; v < devCommABI22807Min || v > devCommABI22807Max {
		return nil, errorf(op, InvalidUsage, "the 200-byte ncclDevComm is NCCL 2.28.7 to 2.28.9's, and the loaded one is %s", nc.lib.describe())
	}
	out := make([]byte, C.DEVCOMM_SIZE_22807)
	p := C.malloc(C.DEVCOMM_SIZE_22807)
	defer C.free(p)
	if err := nc.lib.check(op, C.cn_devcomm_create_22807(ctxHandle(nc.ctx), nc.h, C.int(lsaBarriers), p), nc.h); err != nil {
		return nil, err
	}
	copy(out, unsafe.Slice((*byte)(p), len(out)))
	return out, nil
}

func destroyDevCommBytes(c *Comm, b []byte) error {
	const op = "ncclDevCommDestroy"
	if err := c.usable(op); err != nil {
		return err
	}
	nc := c.impl.(*ncclComm)
	if len(b) != C.DEVCOMM_SIZE_22807 {
		return errorf(op, InvalidArgument, "%d bytes, not a 200-byte ncclDevComm", len(b))
	}
	p := C.CBytes(b)
	defer C.free(p)
	return nc.lib.check(op, C.cn_devcomm_destroy_22807(ctxHandle(nc.ctx), nc.h, p), nc.h)
}
