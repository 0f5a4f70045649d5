package rt

import (
	"reflect"
	"sync"
	"weak"
)

// What rt keeps per driver outside the driver (a library's load in each
// driver, the contexts it destroyed, the implicit context) must not keep
// the driver alive: a program that drops a soft Driver after a sticky fault
// and makes a new one, as the docs suggest, would keep every old one.

// driverRef refers to a driver without keeping it alive when it is a
// pointer to a value of some size (every backend's Driver is); any other
// driver value is held as it is.
type driverRef struct {
	w weak.Pointer[byte]
	d Driver
}

func refTo(d Driver) driverRef {
	if v := reflect.ValueOf(d); v.Kind() == reflect.Pointer && !v.IsNil() && v.Type().Elem().Size() > 0 {
		return driverRef{w: weak.Make((*byte)(v.UnsafePointer()))}
	}
	return driverRef{d: d}
}

// is reports whether r refers to d.
func (r driverRef) is(d Driver) bool { return r == refTo(d) }

// alive reports whether the driver r refers to may still be used.
func (r driverRef) alive() bool { return r.d != nil || r.w.Value() != nil }

// boundedSet is a set that forgets its oldest members beyond max.
type boundedSet[K comparable] struct {
	mu    sync.Mutex
	max   int
	in    map[K]struct{}
	order []K // insertion order, oldest first (may hold deleted keys)
}

func (s *boundedSet[K]) add(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.in == nil {
		s.in = map[K]struct{}{}
	}
	if _, ok := s.in[k]; ok {
		return
	}
	s.in[k] = struct{}{}
	s.order = append(s.order, k)
	if len(s.order) >= 2*s.max {
		old := s.order[:len(s.order)-s.max]
		for _, o := range old {
			delete(s.in, o)
		}
		s.order = append(s.order[:0], s.order[len(old):]...)
		// The keys deleted since were dropped from the map already; those
		// kept may be stale entries of order, which delete ignores.
	}
}

func (s *boundedSet[K]) has(k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.in[k]
	return ok
}

func (s *boundedSet[K]) remove(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.in, k)
}
