// Stream hazards under racecheck: work on two streams that touches the same
// bytes, one of them writing, with nothing ordering the two. On a GPU the
// streams run concurrently and the result depends on timing (a copy on s2
// of what a kernel on s1 writes reads stale data); soft runs the work in
// an order that hides it. With Options.RaceCheck, the call that submits the
// second piece of work fails with ErrIllegalState naming both operations,
// their streams and the bytes.
//
// What orders work is CUDA's: the stream order; an event recorded after
// the first and waited for (StreamWaitEvent) by the second's stream; the
// legacy NULL stream, which waits for the context's blocking streams and
// which they wait for (a non-blocking stream neither); and the host having
// seen the first finish (StreamSynchronize, CtxSynchronize, a StreamQuery
// or EventQuery reporting done, EventSynchronize, a synchronous copy or
// memset — which runs on the NULL stream — or an async copy to pageable
// host memory, which returns when done) before submitting the second. Each
// stream carries a vector clock of the work it is ordered after; each
// piece of work is its stream's clock tick.
//
// A copy or memset touches its exact bytes. How far a kernel reaches from
// a pointer is not known before it runs, so a kernel counts as touching the
// byte each pointer parameter points at (and its module variables, whole),
// written where its PTX may store through it (hazard.go's kernelWrites):
// a copy that covers that byte, or another kernel given the same pointer,
// is a hazard; work on other parts of one allocation (a pipeline of chunks
// over several streams) is not reported. Graph launches and host functions
// are not tracked.
//
// Records are dropped once the host has seen their work finish, so the
// state stays as small as the work in flight.

package soft

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

// vclock maps a stream to the number of its works something is ordered
// after.
type vclock map[*stream]uint64

func (v vclock) join(w vclock) {
	for s, n := range w {
		if n > v[s] {
			v[s] = n
		}
	}
}

func (v vclock) clone() vclock {
	w := make(vclock, len(v))
	for s, n := range v {
		w[s] = n
	}
	return w
}

// access is one piece of work's use of bytes [lo, hi) of an allocation.
type access struct {
	s      *stream
	seq    uint64 // the work's tick of s
	lo, hi uint64
	write  bool
	ptr    bool // a kernel's pointer parameter: lo is where it points
	what   string
}

// span is what a piece of work touches in one allocation.
type span struct {
	a      *exec.Alloc
	lo, hi uint64
	write  bool
	ptr    bool // a kernel's pointer parameter, pointing at lo
}

// where describes the bytes of an access in a report.
func where(lo, hi uint64, ptr bool) string {
	if ptr {
		return fmt.Sprintf("where a pointer parameter points (%#x)", lo)
	}
	return fmt.Sprintf("[%#x, %#x)", lo, hi)
}

// streamRaces is the driver's record for the check (guarded by mu).
type streamRaces struct {
	mu     sync.Mutex
	clocks map[*stream]vclock
	events map[*event]vclock
	host   vclock // the work the host has seen finish
	accs   map[*exec.Alloc][]access
}

func (d *Driver) raceStreams() bool { return d.opt.RaceCheck != RaceOff }

// clockOf is s's clock, made on first use; sr.mu must be held.
func (sr *streamRaces) clockOf(s *stream) vclock {
	if sr.clocks == nil {
		sr.clocks = map[*stream]vclock{}
		sr.events = map[*event]vclock{}
		sr.host = vclock{}
		sr.accs = map[*exec.Alloc][]access{}
	}
	v := sr.clocks[s]
	if v == nil {
		v = vclock{}
		sr.clocks[s] = v
	}
	return v
}

// next is the clock the next work on s has: s's own, what the host has
// seen finish, and the legacy NULL stream's implicit order; sr.mu must be
// held, and c.mu is taken.
func (sr *streamRaces) next(s *stream) vclock {
	v := sr.clockOf(s).clone()
	v.join(sr.host)
	c := s.ctx
	if s == c.null {
		c.mu.Lock()
		for t := range c.streams {
			if t.flags&streamNonBlocking == 0 {
				v.join(sr.clockOf(t))
			}
		}
		c.mu.Unlock()
	} else if s.flags&streamNonBlocking == 0 {
		v.join(sr.clockOf(c.null))
	}
	v[s]++
	return v
}

// streamName names s for a report.
func streamName(s *stream) string {
	if s == s.ctx.null {
		return fmt.Sprintf("the NULL stream of context %#x", uintptr(s.ctx.h))
	}
	kind := "blocking"
	if s.flags&streamNonBlocking != 0 {
		kind = "non-blocking"
	}
	return fmt.Sprintf("%s stream %#x of context %#x", kind, uintptr(s.h), uintptr(s.ctx.h))
}

// orderStreams checks work what on s touching spans against the work in
// flight, and records it: a hazard is ErrIllegalState from op. host says
// the call returns once the work is done (a synchronous copy).
func (d *Driver) orderStreams(op string, s *stream, spans []span, what string, host bool) error {
	if !d.raceStreams() || len(spans) == 0 && !host {
		return nil
	}
	d.gx.mu.Lock()
	captured := s.capt != nil
	d.gx.mu.Unlock()
	if captured {
		return nil
	}
	sr := &d.sr
	sr.mu.Lock()
	defer sr.mu.Unlock()
	v := sr.next(s)
	what = fmt.Sprintf("%s on %s", what, streamName(s))
	for _, sp := range spans {
		for _, x := range sr.accs[sp.a] {
			if x.s == s || x.seq <= v[x.s] || sp.lo >= x.hi || x.lo >= sp.hi || !sp.write && !x.write {
				continue
			}
			mine, theirs := "reads", "reads"
			if sp.write {
				mine = "may write"
			}
			if x.write {
				theirs = "may write"
			}
			return rt.Errorf(op, rt.ErrIllegalState,
				"stream hazard (racecheck): %s %s %s of the %d-byte allocation at %#x (%s), and %s %s %s, with nothing ordering the two: record an event after the earlier work and wait for it on %s (StreamWaitEvent), synchronize, or use one stream",
				what, mine, where(sp.lo, sp.hi, sp.ptr), sp.a.Size, sp.a.Base, sp.a.What, x.what, theirs, where(x.lo, x.hi, x.ptr), streamName(s))
		}
	}
	sr.clocks[s] = v
	for _, sp := range spans {
		sr.accs[sp.a] = append(sr.accs[sp.a], access{s: s, seq: v[s], lo: sp.lo, hi: sp.hi, write: sp.write, ptr: sp.ptr, what: what})
	}
	if host {
		sr.seen(v)
	}
	return nil
}

// seen records that the host has seen the work of v finish, and drops the
// records it orders before everything to come; sr.mu must be held.
func (sr *streamRaces) seen(v vclock) {
	if sr.clocks == nil {
		return
	}
	sr.host.join(v)
	for a, xs := range sr.accs {
		keep := xs[:0]
		for _, x := range xs {
			if x.seq > sr.host[x.s] {
				keep = append(keep, x)
			}
		}
		if len(keep) == 0 {
			delete(sr.accs, a)
		} else {
			sr.accs[a] = keep
		}
	}
}

// hostSynced is the host seeing s's work so far finish (StreamSynchronize,
// StreamQuery done), or with s nil every stream of c's (CtxSynchronize);
// gone forgets c's streams (c is destroyed).
func (d *Driver) hostSynced(c *context, s *stream, gone bool) {
	if !d.raceStreams() {
		return
	}
	sr := &d.sr
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.clocks == nil {
		return
	}
	v := vclock{}
	for t, tv := range sr.clocks {
		if t == s || s == nil && t.ctx == c {
			v.join(tv)
		}
	}
	sr.seen(v)
	if gone {
		for t := range sr.clocks {
			if t.ctx == c {
				delete(sr.clocks, t)
			}
		}
	}
}

// eventRecordedRace is EventRecord(e, s): e stands for s's work so far.
func (d *Driver) eventRecordedRace(e *event, s *stream) {
	if !d.raceStreams() {
		return
	}
	sr := &d.sr
	sr.mu.Lock()
	defer sr.mu.Unlock()
	v := sr.clockOf(s).clone()
	v.join(sr.host)
	sr.events[e] = v
}

// eventWaitedRace is StreamWaitEvent(s, e): s's later work is ordered
// after e's.
func (d *Driver) eventWaitedRace(s *stream, e *event) {
	if !d.raceStreams() {
		return
	}
	sr := &d.sr
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if v := sr.events[e]; v != nil {
		sr.clockOf(s).join(v)
	}
}

// eventSeenRace is the host seeing e complete (EventSynchronize, EventQuery
// done); gone also forgets e (EventDestroy).
func (d *Driver) eventSeenRace(e *event, gone bool) {
	if !d.raceStreams() {
		return
	}
	sr := &d.sr
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if v := sr.events[e]; v != nil && !gone {
		sr.seen(v)
	}
	if gone && sr.events != nil {
		delete(sr.events, e)
	}
}

// launchSpans is what a launch of p with params and module variables vars
// touches (hazard.go's reading of it).
func (d *Driver) launchSpans(p *exec.Program, params []byte, vars []uint64) []span {
	if !d.raceStreams() {
		return nil
	}
	var out []span
	ws := d.kernelWrites(p)
	add := func(v uint64, write, whole bool) {
		if v < exec.ManagedBase || v >= exec.GlobalBase+uint64(len(d.devices))<<40 {
			return
		}
		if a := d.mem.Live(v, 1); a != nil {
			sp := span{a, v, v + 1, write, true}
			if whole {
				sp = span{a, a.Base, a.Base + a.Size, write, false}
			}
			for i := range out {
				if out[i].a == a && out[i].lo == sp.lo && out[i].hi == sp.hi {
					out[i].write = out[i].write || write
					return
				}
			}
			out = append(out, sp)
		}
	}
	for i := 0; i+8 <= len(params); i += 8 {
		add(binary.LittleEndian.Uint64(params[i:]), ws.unknown || ws.slot(i/8), false)
	}
	for _, v := range vars {
		add(v, ws.unknown || ws.vars, true)
	}
	return out
}

// memSpans is what a copy or memset touches.
func (d *Driver) memSpans(m memOp) []span {
	if !d.raceStreams() {
		return nil
	}
	var out []span
	for _, r := range []struct {
		devRange
		write bool
	}{{m.rd, false}, {m.wr, true}} {
		if r.n == 0 {
			continue
		}
		if a := d.mem.Live(r.lo, r.n); a != nil {
			out = append(out, span{a, r.lo, r.lo + r.n, r.write, false})
		}
	}
	return out
}
