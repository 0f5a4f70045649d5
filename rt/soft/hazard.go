// Host/device hazards: a synchronous copy or memset (what rt's host
// accesses and raw Driver calls come down to) that touches memory which
// work on another stream, not yet synchronized with, writes, or reads while
// the host writes. A synchronous copy runs on its context's NULL stream,
// which waits for the context's blocking streams but not for its
// non-blocking ones, nor for other contexts' streams: a test that reads a
// buffer while a kernel on a non-blocking stream still writes it reads
// stale data on a GPU, whatever soft's timing. soft refuses such a copy
// with ErrIllegalState naming both sides: the copy (call, address range,
// allocation) and the other work (the kernel or async copy, its stream and
// context).
//
// What work touches: an async copy or memset its exact range; a kernel the
// allocations its pointer parameters (8-byte parameter slots holding a live
// device address) and its module variables point into, whole. A kernel
// writes a parameter's memory only if its PTX may store through that
// parameter: a flow-insensitive trace of parameter slots through registers
// to the addresses of st, atom, red and global-destination cp (kernelWrites);
// a store whose address it cannot trace counts as writing everything the
// kernel touches.
//
// Work counts from its submission to the host's knowing it finished:
// StreamSynchronize, CtxSynchronize, or StreamQuery reporting done, of its
// stream or context; EventSynchronize or EventQuery reporting done of an
// event recorded after it; or a StreamWaitEvent of such an event by the
// NULL stream or a blocking stream of the copy's context, which orders it
// before the context's later synchronous copies. So a hazard is reported
// whether or not the work happened to be done already: detection does not
// depend on timing. Only work on non-blocking streams is tracked (a
// context's blocking and NULL streams are waited for by its synchronous
// copies); graph launches and host functions are not.

package soft

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// devRange is a range of device memory a copy touches (n = 0: none).
type devRange struct{ lo, n uint64 }

// touch is what one stream's unsynchronized work does to one allocation.
type touch struct {
	lo, hi uint64 // the bytes, merged over the work
	write  bool
	seq    uint64 // the latest work's
	// The latest work, for the report: the kernel p, or the async copy or
	// memset op (described only when reported, so that recording a launch
	// allocates nothing).
	p  *exec.Program
	op string
}

// describe is the work of t, done on s, as a report names it.
func (t *touch) describe(s *stream) string {
	if t.p != nil {
		return fmt.Sprintf("%s, launched on stream %#x of context %#x", kernelDesc(t.p), uintptr(s.h), uintptr(s.ctx.h))
	}
	return fmt.Sprintf("%sAsync on stream %#x of context %#x", t.op, uintptr(s.h), uintptr(s.ctx.h))
}

// eventMark is where an event was last recorded: its stream and the
// sequence number of the work before it.
type eventMark struct {
	s   *stream
	seq uint64
}

// hazards is the driver's record of unsynchronized work.
type hazards struct {
	mu      sync.Mutex
	seq     uint64
	streams map[*stream]map[*exec.Alloc]touch // kept when empty, for the stream's next work
	events  map[*event]eventMark
	writes  sync.Map // *program → writeSet
}

// now is the sequence number of the latest work submitted.
func (hz *hazards) now() uint64 {
	hz.mu.Lock()
	defer hz.mu.Unlock()
	return hz.seq
}

// add records that work on s (the kernel p, or op) touches bytes [lo, hi)
// of a.
func (hz *hazards) add(s *stream, a *exec.Alloc, lo, hi uint64, write bool, p *exec.Program, op string) {
	if hz.streams == nil {
		hz.streams = map[*stream]map[*exec.Alloc]touch{}
	}
	m := hz.streams[s]
	if m == nil {
		m = map[*exec.Alloc]touch{}
		hz.streams[s] = m
	}
	t, ok := m[a]
	if !ok {
		m[a] = touch{lo: lo, hi: hi, write: write, seq: hz.seq, p: p, op: op}
		return
	}
	m[a] = touch{lo: min(t.lo, lo), hi: max(t.hi, hi), write: t.write || write, seq: hz.seq, p: p, op: op}
}

// tracked says whether work on s is tracked.
func tracked(s *stream) bool { return s != nil && s.flags&streamNonBlocking != 0 }

// launched records the memory a launch of p on s with params and module
// variables vars touches.
func (d *Driver) launched(s *stream, p *exec.Program, params []byte, vars []uint64) {
	if !tracked(s) {
		return
	}
	ws := d.kernelWrites(p)
	hz := &d.hz
	hz.mu.Lock()
	defer hz.mu.Unlock()
	hz.seq++
	for i := 0; i+8 <= len(params); i += 8 {
		v := binary.LittleEndian.Uint64(params[i:])
		if v < exec.ManagedBase || v >= exec.GlobalBase+uint64(len(d.devices))<<40 {
			continue
		}
		if a := d.mem.Live(v, 1); a != nil {
			hz.add(s, a, a.Base, a.Base+a.Size, ws.unknown || ws.slot(i/8), p, "")
		}
	}
	for _, v := range vars {
		if a := d.mem.Live(v, 1); a != nil {
			hz.add(s, a, a.Base, a.Base+a.Size, ws.unknown || ws.vars, p, "")
		}
	}
}

// kernelDesc names a kernel for a hazard report: "kernel k", with the
// source line of its first instruction when the PTX carries line
// information ("kernel k (k.cu:12)").
func kernelDesc(p *exec.Program) string {
	if p.Func != nil && p.Func.Body != nil {
		var first func(b *ptx.Block) *ptx.SrcPos
		first = func(b *ptx.Block) *ptx.SrcPos {
			for _, s := range b.Stmts {
				switch s := s.(type) {
				case *ptx.Instr:
					if s.Src != nil && s.Src.Line > 0 {
						return s.Src.Outermost()
					}
				case *ptx.Block:
					if src := first(s); src != nil {
						return src
					}
				}
			}
			return nil
		}
		if src := first(p.Func.Body); src != nil {
			return fmt.Sprintf("kernel %s (%s:%d)", p.Name, src.File, src.Line)
		}
	}
	return "kernel " + p.Name
}

// copied records the memory an async copy or memset on s touches.
func (d *Driver) copied(op string, s *stream, m memOp) {
	if !tracked(s) || m.rd.n == 0 && m.wr.n == 0 {
		return
	}
	hz := &d.hz
	hz.mu.Lock()
	defer hz.mu.Unlock()
	hz.seq++
	for _, r := range []struct {
		devRange
		write bool
	}{{m.rd, false}, {m.wr, true}} {
		if r.n == 0 {
			continue
		}
		if a := d.mem.Live(r.lo, r.n); a != nil {
			hz.add(s, a, r.lo, r.lo+r.n, r.write, nil, op)
		}
	}
}

// checkHost fails a synchronous copy in c that touches memory unsynchronized
// work on another stream writes, or reads while the copy writes.
func (d *Driver) checkHost(op string, c *context, m memOp) error {
	hz := &d.hz
	hz.mu.Lock()
	defer hz.mu.Unlock()
	for s, touches := range hz.streams {
		s.ctx.mu.Lock()
		gone := s.ctx.destroyed
		s.ctx.mu.Unlock()
		if gone {
			delete(hz.streams, s)
			continue
		}
		for _, r := range []struct {
			devRange
			write bool
		}{{m.rd, false}, {m.wr, true}} {
			if r.n == 0 {
				continue
			}
			a := d.mem.Live(r.lo, r.n)
			if a == nil {
				continue
			}
			t, ok := touches[a]
			if !ok || r.lo >= t.hi || r.lo+r.n <= t.lo || !r.write && !t.write {
				continue
			}
			verb, theirs := "reads", "may write"
			if r.write {
				verb, theirs = "writes", "reads"
				if t.write {
					theirs = "may write"
				}
			}
			return rt.Errorf(op, rt.ErrIllegalState,
				"host/device hazard: this synchronous call %s [%#x, %#x) of the %d-byte allocation at %#x (%s) in context %#x, which %s, not synchronized with since, %s; synchronize that stream (or wait for an event recorded after the work) first",
				verb, r.lo, r.lo+r.n, a.Size, a.Base, a.What, uintptr(c.h), t.describe(s), theirs)
		}
	}
	return nil
}

// synced forgets the work up to seq on s, or, with s nil, on every stream
// of c: the host has seen it finish.
func (d *Driver) synced(c *context, s *stream, seq uint64) {
	hz := &d.hz
	hz.mu.Lock()
	defer hz.mu.Unlock()
	for t, touches := range hz.streams {
		if s != nil && t != s || s == nil && t.ctx != c {
			continue
		}
		for a, x := range touches {
			if x.seq <= seq {
				delete(touches, a)
			}
		}
	}
}

// recorded notes where e was recorded.
func (d *Driver) recorded(e *event, s *stream) {
	hz := &d.hz
	hz.mu.Lock()
	defer hz.mu.Unlock()
	if hz.events == nil {
		hz.events = map[*event]eventMark{}
	}
	hz.events[e] = eventMark{s, hz.seq}
}

// eventDone forgets the work before e's record: the host has seen e
// complete, or a stream the context's synchronous copies wait for waits
// for it.
func (d *Driver) eventDone(e *event) {
	d.hz.mu.Lock()
	m, ok := d.hz.events[e]
	d.hz.mu.Unlock()
	if ok {
		d.synced(nil, m.s, m.seq)
	}
}

// eventWaited is StreamWaitEvent(s, e): if the context's synchronous copies
// wait for s, the work before e's record is ordered before them.
func (d *Driver) eventWaited(s *stream, e *event) {
	if !tracked(s) {
		d.eventDone(e)
	}
}

// eventGone forgets a destroyed event.
func (d *Driver) eventGone(e *event) {
	d.hz.mu.Lock()
	delete(d.hz.events, e)
	d.hz.mu.Unlock()
}

// writeSet is what a kernel may store through: the 8-byte parameter slots
// (slot i holds bytes [8i, 8i+8); bit 63 stands for 63 and up), its module
// variables, or, when a store's address cannot be traced, anything.
type writeSet struct {
	slots   uint64
	vars    bool
	unknown bool
}

func (w writeSet) slot(i int) bool { return w.slots&(1<<min(i, 63)) != 0 }

// taint is where a register's value may come from.
type taint struct {
	slots   uint64 // kernel parameter slots
	vars    bool   // the address of a module variable
	local   bool   // the address of shared or local memory
	unknown bool   // loaded from memory, or untraceable
}

func (t taint) or(u taint) taint {
	return taint{t.slots | u.slots, t.vars || u.vars, t.local || u.local, t.unknown || u.unknown}
}

// kernelWrites traces p's parameters to the addresses its stores use.
func (d *Driver) kernelWrites(p *exec.Program) writeSet {
	if w, ok := d.hz.writes.Load(p); ok {
		return w.(writeSet)
	}
	w := traceWrites(p)
	d.hz.writes.Store(p, w)
	return w
}

func traceWrites(p *exec.Program) writeSet {
	mod := p.Module.PTX
	entry := p.Func
	offs, _ := exec.LayoutParams(entry.Params, 0)
	params := map[string]uint32{}
	for i, q := range entry.Params {
		params[q.Name] = offs[i]
	}
	vars := map[string]bool{}
	locals := map[string]bool{}
	for _, v := range mod.Vars {
		switch v.Space {
		case ptx.SpaceGlobal, ptx.SpaceConst:
			vars[v.Name] = true
		default:
			locals[v.Name] = true
		}
	}
	type fins struct {
		fn  string
		ins *ptx.Instr
	}
	// The kernel and the functions it calls, transitively.
	funcs := map[string]*ptx.Func{}
	for _, f := range mod.Funcs {
		if f.Body != nil && !f.Entry {
			funcs[f.Name] = f
		}
	}
	var all []fins
	seen := map[*ptx.Func]bool{}
	var visit func(f *ptx.Func)
	visit = func(f *ptx.Func) {
		if seen[f] {
			return
		}
		seen[f] = true
		var walk func(b *ptx.Block)
		walk = func(b *ptx.Block) {
			for _, s := range b.Stmts {
				switch s := s.(type) {
				case *ptx.Instr:
					all = append(all, fins{f.Name, s})
					if s.Op == "call" {
						for _, o := range s.Operands {
							if sym, ok := o.(*ptx.Sym); ok && funcs[sym.Name] != nil {
								visit(funcs[sym.Name])
							}
						}
					}
				case *ptx.Block:
					walk(s)
				case *ptx.Var:
					if s.Space == ptx.SpaceShared || s.Space == ptx.SpaceLocal {
						locals[s.Name] = true
					}
				}
			}
		}
		walk(f.Body)
	}
	visit(entry)
	regs := map[string]taint{}
	var pool taint // what flows through .param between functions
	var ws writeSet
	var of func(fn string, o ptx.Operand) taint
	of = func(fn string, o ptx.Operand) taint {
		switch o := o.(type) {
		case *ptx.Reg:
			if o.Name == "%SP" || o.Name == "%SPL" {
				return taint{local: true}
			}
			return regs[fn+"/"+o.Name]
		case *ptx.Vec:
			var t taint
			for _, e := range o.Elems {
				t = t.or(of(fn, e))
			}
			return t
		case *ptx.Sym:
			switch {
			case vars[o.Name]:
				return taint{vars: true}
			case locals[o.Name]:
				return taint{local: true}
			}
			if _, ok := params[o.Name]; ok {
				return taint{slots: ^uint64(0)} // a parameter's address
			}
		case *ptx.Addr:
			switch b := o.Base.(type) {
			case nil:
				return taint{unknown: true}
			case *ptx.Sym:
				if !vars[b.Name] {
					return taint{local: true} // shared, local or parameter space
				}
			}
			return of(fn, o.Base)
		}
		return taint{}
	}
	for iter := 0; ; iter++ {
		if iter == 50 {
			return writeSet{unknown: true}
		}
		changed := false
		set := func(fn string, o ptx.Operand, t taint) {
			var dsts []ptx.Operand
			switch o := o.(type) {
			case *ptx.Reg:
				dsts = []ptx.Operand{o}
			case *ptx.Vec:
				dsts = o.Elems
			case *ptx.Pair:
				dsts = []ptx.Operand{o.First, o.Second}
			}
			for _, r := range dsts {
				if r, ok := r.(*ptx.Reg); ok {
					k := fn + "/" + r.Name
					if n := regs[k].or(t); n != regs[k] {
						regs[k] = n
						changed = true
					}
				}
			}
		}
		for _, x := range all {
			in, fn := x.ins, x.fn
			ops := in.Operands
			if len(ops) == 0 {
				continue
			}
			mods := "." + strings.Join(in.Mods, ".") + "."
			space := func() string {
				for _, m := range in.Mods {
					if m == "global" || m == "shared" || m == "local" || m == "param" || m == "const" || strings.HasPrefix(m, "shared::") {
						return m
					}
				}
				return ""
			}
			store := func(addr ptx.Operand, sp string) {
				if sp != "" && sp != "global" {
					return
				}
				t := of(fn, addr)
				ws.slots |= t.slots
				ws.vars = ws.vars || t.vars
				if t.unknown || t.slots == 0 && !t.vars && !t.local {
					ws.unknown = true
				}
			}
			switch in.Op {
			case "ld", "ldu":
				if space() == "param" {
					var t taint
					if a, ok := ops[1].(*ptx.Addr); ok {
						if s, ok := a.Base.(*ptx.Sym); ok && fn == entry.Name {
							if off, ok := params[s.Name]; ok {
								t.slots = 1 << min((int64(off)+a.Offset)/8, 63)
							}
						}
					}
					if t.slots == 0 {
						t = pool
					}
					set(fn, ops[0], t)
				} else {
					set(fn, ops[0], taint{unknown: true})
				}
			case "st":
				if sp := space(); sp == "param" {
					for _, o := range ops[1:] {
						if v, ok := o.(*ptx.Vec); ok {
							for _, e := range v.Elems {
								pool = pool.or(of(fn, e))
							}
						} else {
							pool = pool.or(of(fn, o))
						}
					}
				} else {
					store(ops[0], sp)
				}
			case "atom":
				if len(ops) > 1 {
					store(ops[1], space())
				}
				set(fn, ops[0], taint{unknown: true})
			case "red":
				store(ops[0], space())
			case "cp":
				if space() == "global" {
					store(ops[0], "global")
				}
			case "wmma", "mma", "wgmma":
				if strings.Contains(mods, ".store.") {
					store(ops[0], space())
				} else if len(ops) > 0 {
					set(fn, ops[0], taint{unknown: true})
				}
			case "bar", "barrier", "bra", "brx", "ret", "exit", "call", "trap", "membar", "fence", "prefetch", "prefetchu", "setmaxnreg", "griddepcontrol", "nanosleep":
			default:
				var t taint
				for _, o := range ops[1:] {
					t = t.or(of(fn, o))
				}
				set(fn, ops[0], t)
			}
		}
		if !changed {
			return ws
		}
		ws = writeSet{}
	}
}
