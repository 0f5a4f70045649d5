// Package gopool hands jobs to parked goroutines, so that starting work
// on a goroutine of its own allocates nothing in steady state (a go
// statement allocates its closure, which every launch would pay): the
// driver's stream runners and the executor's CTA workers.
package gopool

import "sync"

// Job is work for a goroutine of a Pool.
type Job interface {
	// Run does the job. A job whose end others wait for calls w.Free
	// just before it tells them (with nothing after that but returning),
	// so that a Go that follows at once finds this goroutine and starts
	// none.
	Run(w *Worker)
}

// Pool is goroutines that park between jobs.
type Pool struct {
	keep int // parked goroutines kept; more exit

	mu   sync.Mutex
	wake sync.Cond
	idle int   // goroutines free for a job and not promised one
	jobs []Job // promised to free goroutines, not yet taken
}

// New returns a pool that keeps up to keep goroutines parked.
func New(keep int) *Pool {
	p := &Pool{keep: keep}
	p.wake.L = &p.mu
	return p
}

// Worker is one goroutine of a pool, as its jobs see it.
type Worker struct {
	p    *Pool
	free bool
}

// Go runs j on a free goroutine, or on a new one when none is free.
// Jobs never wait for each other: each has a goroutine of its own.
func (p *Pool) Go(j Job) {
	p.mu.Lock()
	if p.idle > 0 {
		p.idle--
		p.jobs = append(p.jobs, j)
		p.mu.Unlock()
		p.wake.Signal()
		return
	}
	p.mu.Unlock()
	go p.loop(j)
}

// Free counts w's goroutine free for the next job though its job has not
// returned yet: it takes that job once it has. A second call does nothing.
func (w *Worker) Free() {
	if w.free {
		return
	}
	w.free = true
	p := w.p
	p.mu.Lock()
	p.idle++
	p.mu.Unlock()
}

func (p *Pool) loop(j Job) {
	w := &Worker{p: p}
	for {
		w.free = false
		j.Run(w)
		w.Free()
		p.mu.Lock()
		for len(p.jobs) == 0 {
			if p.idle > p.keep {
				p.idle--
				p.mu.Unlock()
				return
			}
			p.wake.Wait()
		}
		j = p.jobs[0]
		n := copy(p.jobs, p.jobs[1:])
		p.jobs[n] = nil
		p.jobs = p.jobs[:n]
		p.mu.Unlock()
	}
}
