// A loaded module as the executor runs it: its kernels decoded into
// programs, its functions' addresses, and its variables' layout and
// initializers.

package exec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
)

// Module is a loaded PTX module: parsed, contracted and decoded once, and
// shared by every context; the driver keeps each context's variables.
type Module struct {
	File    string
	PTX     *ptx.Module
	funcs   map[string]*ptx.Func // definitions win over prototypes
	Vars    []*ptx.Var           // module .global and .const variables
	Kernels []*Program

	// Function addresses (indirect.go).
	serial   uint64
	FuncAddr map[string]uint64
	byAddr   map[uint64]*ptx.Func
	taken    []*ptx.Func // functions whose address is taken

	// scope is the module's variables and functions by name, made once
	// and shared (read-only) by every kernel's decoder (decode.go).
	scopeOnce sync.Once
	scope     *scope
}

// LoadModule makes mod, as parsed from the file name, a module for a
// device under cfg: it contracts mul and add pairs as ptxas does, decodes
// every kernel (instrumenting it for racecheck or the shuffled scheduler
// if cfg asks) and evaluates the variables' initializers. The error is an
// *rt.Error of cuLibraryLoadData, ErrInvalidPTX or
// ErrUnsupportedPTXVersion, whose detail starts with the PTX position.
func LoadModule(name string, mod *ptx.Module, cfg *Config) (*Module, error) {
	const op = "cuLibraryLoadData"
	Contract(mod)
	lib, err := newModule(name, mod, cfg.ComputeCapability)
	if err != nil {
		return nil, err
	}
	lib.indexFuncs()
	for _, f := range mod.Entries() {
		p, err := decodeKernel(lib, f)
		if err != nil {
			return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%v", err)
		}
		if cfg.RaceCheck != RaceOff {
			instrument(p)
		}
		yieldInSpins(p)
		if cfg.ShuffleSeed != 0 {
			yieldInLoops(p)
		}
		nopRuns(p)
		lib.Kernels = append(lib.Kernels, p)
	}
	if err := lib.checkInits(); err != nil {
		return nil, err
	}
	return lib, nil
}

// newModule is a parsed module, its module-scope declarations checked
// (the target, against compute capability cc; the variables); its kernels
// are not decoded yet. (check.go makes one of a module of skipped bodies.)
func newModule(name string, mod *ptx.Module, cc int) (*Module, error) {
	const op = "cuLibraryLoadData"
	lib := &Module{File: name, PTX: mod, funcs: map[string]*ptx.Func{}}
	if err := checkTarget(mod, cc); err != nil {
		return nil, err
	}
	for _, f := range mod.Funcs {
		if prev := lib.funcs[f.Name]; prev == nil || prev.Body == nil {
			lib.funcs[f.Name] = f
		}
	}
	for _, v := range mod.Vars {
		switch v.Space {
		case ptx.SpaceGlobal, ptx.SpaceConst:
			if v.Linkage == ptx.LinkExtern {
				return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: .extern variable %s: the soft backend does not link separate device code", v.Pos, v.Name)
			}
			if VarSize(v) < 0 {
				return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: variable %s has no size", v.Pos, v.Name)
			}
			lib.Vars = append(lib.Vars, v)
		case ptx.SpaceShared:
		default:
			return nil, rt.Errorf(op, rt.ErrInvalidPTX, "%s: module-scope .%s variable %s is not supported", v.Pos, v.Space, v.Name)
		}
	}
	return lib, nil
}

// checkInits evaluates every initializer, so that a bad one fails the
// load, not a launch.
func (lib *Module) checkInits() error {
	for _, v := range lib.Vars {
		if _, err := lib.InitBytes(v, func(string) (uint64, bool) { return 0, true }); err != nil {
			return rt.Errorf("cuLibraryLoadData", rt.ErrInvalidPTX, "%v", err)
		}
	}
	return nil
}

// checkTarget checks that the module's PTX version, address size, debug
// target and sm_ target are ones soft runs on a device of compute
// capability cc.
func checkTarget(mod *ptx.Module, cc int) error {
	const op = "cuLibraryLoadData"
	if mod.Version.Major > 9 {
		return rt.Errorf(op, rt.ErrUnsupportedPTXVersion, "%s: PTX ISA %d.%d is newer than the soft backend supports (9.x)",
			mod.Version.Pos, mod.Version.Major, mod.Version.Minor)
	}
	if mod.AddressSize == 32 {
		return rt.Errorf(op, rt.ErrInvalidPTX, "%s: 32-bit PTX (.address_size 32) is not supported", mod.File)
	}
	if slices.Contains(mod.Target, "debug") && !hasDWARF(mod) {
		// ptxas's words, seen on the H100.
		return rt.Errorf(op, rt.ErrInvalidPTX, "%s: Debug information not found in presence of .target debug", mod.File)
	}
	for _, t := range mod.Target {
		if !strings.HasPrefix(t, "sm_") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimRight(t[3:], "abcdefghijklmnopqrstuvwxyz"))
		if err == nil && n > cc {
			return rt.Errorf(op, rt.ErrInvalidPTX, "%s: PTX targets %s but the emulated device is sm_%d (soft.Options.ComputeCapability)",
				mod.File, t, cc)
		}
	}
	return nil
}

// VarIndex is the index of the module variable name in lib.vars, or -1.
func (lib *Module) VarIndex(name string) int {
	for i, v := range lib.Vars {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// InitBytes evaluates a variable's initialiser into its bytes (the
// omitted tail stays zero). addr resolves symbols to this context.
func (lib *Module) InitBytes(v *ptx.Var, addr func(string) (uint64, bool)) ([]byte, error) {
	d, err := v.InitData()
	if d == nil || err != nil {
		return nil, err
	}
	for _, a := range d.Addrs {
		base, ok := addr(a.Sym)
		if !ok {
			return nil, fmt.Errorf("%s: initialiser of %s refers to %s, which is not a .global/.const variable of this module", a.Pos, v.Name, a.Sym)
		}
		a.Put(d.Bytes, base)
	}
	return d.Bytes, nil
}
