package gopool

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// job waits for release, so that jobs running at once show that each has
// a goroutine of its own.
type job struct {
	started, release chan struct{}
	wg               *sync.WaitGroup
}

func (j *job) Run(w *Worker) {
	j.started <- struct{}{}
	<-j.release
	w.Free()
	j.wg.Done()
}

// TestConcurrent: jobs handed out together all run at once, parked
// goroutines or not (a cooperative launch's CTAs wait for each other).
func TestConcurrent(t *testing.T) {
	p := New(4)
	for round := 0; round < 3; round++ {
		const n = 16
		var wg sync.WaitGroup
		wg.Add(n)
		j := &job{started: make(chan struct{}), release: make(chan struct{}), wg: &wg}
		for i := 0; i < n; i++ {
			p.Go(j)
		}
		for i := 0; i < n; i++ {
			<-j.started // all n must start before any is released
		}
		close(j.release)
		wg.Wait()
	}
}

type nop struct{ wg sync.WaitGroup }

func (j *nop) Run(w *Worker) {
	w.Free()
	j.wg.Done()
}

// TestNoAllocs: a job that frees its goroutine before it says it is done
// finds a parked one next time, so a steady Go allocates nothing.
func TestNoAllocs(t *testing.T) {
	p := New(4)
	j := &nop{}
	run := func() {
		j.wg.Add(2)
		p.Go(j)
		p.Go(j)
		j.wg.Wait()
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("Go allocates %v times per two jobs in steady state, want 0", n)
	}
}

// TestKeep: goroutines beyond Keep exit once idle.
func TestKeep(t *testing.T) {
	p := New(2)
	var wg sync.WaitGroup
	wg.Add(8)
	j := &job{started: make(chan struct{}, 8), release: make(chan struct{}), wg: &wg}
	for i := 0; i < 8; i++ {
		p.Go(j)
	}
	close(j.release)
	wg.Wait()
	for start := time.Now(); ; runtime.Gosched() {
		p.mu.Lock()
		idle := p.idle
		p.mu.Unlock()
		if idle <= 2 {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d goroutines parked, want at most Keep = 2", idle)
		}
	}
}
