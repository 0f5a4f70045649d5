package nccl

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Group calls (ncclGroupStart, ncclGroupEnd). As in NCCL, a group belongs
// to the calling thread: GroupStart locks the calling goroutine to its OS
// thread until the matching GroupEnd, so the operations the goroutine
// issues in between, and only they, are grouped.

// groupState is one thread's open group.
type groupState struct {
	depth int
	// nccl is set once ncclGroupStart has been issued for this group (at
	// its first NCCL call): a group of soft ranks alone never loads NCCL.
	nccl bool
	// ncclEnd runs ncclGroupEnd and finishes the communicators the group
	// made or used (nccl_cgo.go's ncclGroup, ncclState).
	ncclEnd   func() error
	ncclState any
	// soft is the soft engine's deferred work (soft.go).
	soft softGroup
	// created are the communicators InitRank and Split made in the group,
	// finished at GroupEnd.
	created []*Comm
}

var groups struct {
	active   atomic.Int32 // open groups in the process: 0 skips the thread lookup
	mu       sync.Mutex
	byThread map[int]*groupState
}

// currentGroup is the calling thread's open group, or nil.
func currentGroup() *groupState {
	if groups.active.Load() == 0 {
		return nil
	}
	tid := threadID()
	groups.mu.Lock()
	defer groups.mu.Unlock()
	return groups.byThread[tid]
}

// GroupStart opens a group (ncclGroupStart): until the matching GroupEnd,
// operations the calling goroutine issues are only recorded, and GroupEnd
// issues them together. That is how one goroutine drives several ranks
// (an AllReduce on each), how Sends and Recvs between two ranks proceed
// together, and how several operations on one communicator fuse into one
// launch. InitRank and Split in a group are finished at GroupEnd. Groups
// nest; only the outermost GroupEnd issues the work.
//
// GroupStart locks the goroutine to its OS thread (runtime.LockOSThread)
// until the matching GroupEnd.
func GroupStart() {
	runtime.LockOSThread()
	tid := threadID()
	groups.mu.Lock()
	defer groups.mu.Unlock()
	if groups.byThread == nil {
		groups.byThread = map[int]*groupState{}
	}
	g := groups.byThread[tid]
	if g == nil {
		g = &groupState{}
		groups.byThread[tid] = g
		groups.active.Add(1)
	}
	g.depth++
}

// GroupEnd closes the group GroupStart opened (ncclGroupEnd). The
// outermost GroupEnd issues the group's work: the operations are queued on
// their streams when it returns (as with NCCL, not done), and the
// communicators InitRank and Split made in it are ready. Without a
// matching GroupStart it fails with InvalidUsage.
func GroupEnd() error {
	tid := threadID()
	groups.mu.Lock()
	g := groups.byThread[tid]
	if g == nil {
		groups.mu.Unlock()
		return errorf("ncclGroupEnd", InvalidUsage, "no group is open on this goroutine (GroupEnd without GroupStart)")
	}
	g.depth--
	last := g.depth == 0
	if last {
		delete(groups.byThread, tid)
		groups.active.Add(-1)
	}
	groups.mu.Unlock()
	defer runtime.UnlockOSThread()
	if !last {
		return nil
	}
	return g.end()
}

// Group runs fn between GroupStart and GroupEnd and returns fn's error,
// else GroupEnd's. The group is ended even when fn fails: NCCL has no way
// to drop a group's operations, so those fn issued before failing are
// issued too.
func Group(fn func() error) error {
	GroupStart()
	ferr := fn()
	eerr := GroupEnd()
	if ferr != nil {
		return ferr
	}
	return eerr
}

// end issues the outermost group's work.
func (g *groupState) end() error {
	var errs []error
	if g.nccl {
		errs = append(errs, g.ncclEnd())
	}
	errs = append(errs, g.soft.end())
	for _, c := range g.created {
		if err := c.impl.groupDone(); err != nil {
			c.initErr = err
			errs = append(errs, err)
		} else {
			c.rank, c.size = c.impl.rankSize()
		}
		c.pending.Store(false)
	}
	return errors.Join(errs...)
}
