package rt

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A backend registers an opener under a name ("cuda", "soft") from its init
// function; importing the backend package is what makes it available, as with
// database/sql drivers.
type backend struct {
	name string
	rank int // lower is preferred by Default
	open func() (Driver, error)
}

var (
	regMu    sync.Mutex
	backends []backend

	defMu  sync.Mutex
	defDrv Driver
	defErr error
)

// Register makes a backend available to Default and Open. rank orders the
// automatic choice: the real GPU backend registers with rank 0, the soft
// backend with rank 100. Register panics on a duplicate name (a programming
// error at init time).
func Register(name string, rank int, open func() (Driver, error)) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, b := range backends {
		if b.name == name {
			panic("rt: backend " + name + " registered twice")
		}
	}
	backends = append(backends, backend{name, rank, open})
	sort.SliceStable(backends, func(i, j int) bool { return backends[i].rank < backends[j].rank })
}

// Backends lists the registered backend names, preferred first.
func Backends() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var out []string
	for _, b := range backends {
		out = append(out, b.name)
	}
	return out
}

// Open opens the named registered backend.
func Open(name string) (Driver, error) {
	regMu.Lock()
	var open func() (Driver, error)
	for _, b := range backends {
		if b.name == name {
			open = b.open
		}
	}
	regMu.Unlock()
	if open == nil {
		return nil, errors.New("rt: " + notRegistered(name))
	}
	return open()
}

// shipped are the backends cugen ships: a program makes one available by
// importing its package.
var shipped = []struct{ name, pkg string }{
	{"cuda", "github.com/cugen/cugen/rt/cgo"},
	{"soft", "github.com/cugen/cugen/rt/soft"},
}

// notRegistered says how to make the backend name available: the import,
// for a backend cugen ships; else the valid names and their imports.
func notRegistered(name string) string {
	registered := "none is registered"
	if names := Backends(); len(names) > 0 {
		registered = "registered: " + strings.Join(names, ", ")
	}
	var valid []string
	for _, b := range shipped {
		if b.name == name {
			return fmt.Sprintf("backend %q is not registered: import _ %q (%s)", name, b.pkg, registered)
		}
		valid = append(valid, fmt.Sprintf("%s (import _ %q)", b.name, b.pkg))
	}
	return fmt.Sprintf("no backend %q; the backends are %s (%s)", name, strings.Join(valid, " and "), registered)
}

// EnvBackend is the environment variable that forces Default's choice
// ("cuda" or "soft").
const EnvBackend = "CUGEN_BACKEND"

// Default returns the process-wide driver, opening it on first use: the backend
// named by $CUGEN_BACKEND if set, otherwise the first registered backend (by
// rank) that opens and has at least one device. With rt/cgo and rt/soft both
// imported, a machine with a GPU gets the GPU and one without gets soft.
func Default() (Driver, error) {
	defMu.Lock()
	defer defMu.Unlock()
	if defDrv != nil || defErr != nil {
		return defDrv, defErr
	}
	defDrv, defErr = chooseDefault()
	return defDrv, defErr
}

func chooseDefault() (Driver, error) {
	if name := os.Getenv(EnvBackend); name != "" {
		if !slices.Contains(Backends(), name) {
			return nil, fmt.Errorf("rt: %s=%s: %s", EnvBackend, name, notRegistered(name))
		}
		return Open(name)
	}
	regMu.Lock()
	list := append([]backend(nil), backends...)
	regMu.Unlock()
	if len(list) == 0 {
		return nil, errors.New("rt: no backend registered; import github.com/cugen/cugen/rt/cgo (GPU) or github.com/cugen/cugen/rt/soft (CPU)")
	}
	var errs []error
	for _, b := range list {
		d, err := b.open()
		if err == nil {
			var n int
			if n, err = d.DeviceCount(); err == nil && n > 0 {
				return d, nil
			}
			if err == nil {
				err = errors.New("no devices")
			}
		}
		errs = append(errs, fmt.Errorf("%s: %w", b.name, err))
	}
	return nil, fmt.Errorf("rt: no usable backend: %w", errors.Join(errs...))
}
