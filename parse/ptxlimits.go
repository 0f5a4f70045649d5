package parse

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
)

// What ptxas refuses of a PTX module, checked when cugen reads it, so that
// go generate fails at the kernel's line rather than the driver's JIT at
// the first launch on a GPU (rt/soft would run the kernel): a kernel's
// static shared memory over 48 KiB, a thread count over 1024 in its
// .maxntid or .reqntid, a function's local frame over 512 KiB per thread,
// and the module's constant data over the 64 KiB bank. Parameter blocks
// are limits.go's.
const (
	MaxStaticShared    = 48 << 10  // bytes of __shared__ a kernel declares; more is dynamic, opted into per kernel
	MaxThreadsPerBlock = 1024      // threads of a block on every device since sm_20
	MaxLocalFrame      = 512 << 10 // bytes of local memory per thread
	MaxConstBank       = 64 << 10  // bytes of a module's __constant__ data
)

// A LimitError is a limit of ptxas's that a PTX module breaks. Read's error
// for such a module joins one per limit broken (errors.Join).
type LimitError struct {
	Pos  ptx.Pos // the kernel's, function's or variable's line in the PTX
	Name string  // its symbol
	Msg  string  // what is over which limit, and what to do
	// Source is where the kernel is defined in the CUDA source, when the
	// caller knows it ("k.cu:3:17"; gen/pipeline sets it from -src).
	Source string
}

func (e *LimitError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("%s: %s (line %d of the PTX)", e.Source, e.Msg, e.Pos.Line)
	}
	return fmt.Sprintf("%s:%d: %s", e.Pos.Filename, e.Pos.Line, e.Msg)
}

// resources is what a function's body declares and refers to, as ptxas
// counts it against the limits.
type resources struct {
	shared  int             // bytes of .shared arrays declared in the body
	local   int             // bytes of .local arrays declared in the body (the frame)
	refs    map[string]bool // module-scope names the body uses: variables and functions
	funcPos ptx.Pos
}

// checkPTXLimits sets each kernel's SharedBytes and DynamicShared from the
// module's text (its own shared arrays and its callees', the module's that
// it or they refer to) and returns an error per limit broken, all of them,
// each at its kernel's or variable's line.
func checkPTXLimits(m *ptx.Module, text []byte, kernels []*Kernel) error {
	if text == nil {
		return nil
	}
	byName := map[string]*Kernel{}
	for _, k := range kernels {
		byName[k.Name] = k
	}
	shared := map[string]*ptx.Var{}
	var errs []error
	constBytes := 0
	for _, v := range m.Vars {
		switch v.Space {
		case ptx.SpaceShared:
			shared[v.Name] = v
		case ptx.SpaceConst:
			if v.Linkage == ptx.LinkExtern {
				continue
			}
			constBytes += varBytes(v)
			if constBytes > MaxConstBank {
				errs = append(errs, &LimitError{Pos: v.Pos, Name: v.Name, Msg: fmt.Sprintf(".const %s: the module's constant data reach %d bytes, over the %d (64 KiB) of the constant bank: ptxas refuses the module",
					v.Name, constBytes, MaxConstBank)})
				constBytes = -1 << 40 // one error
			}
		}
	}
	funcs := map[string]*resources{}
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		lo, hi := f.Body.Pos.Offset, f.Body.End.Offset+1
		if lo < 0 || hi > len(text) || lo >= hi {
			continue
		}
		r := scanBody(text[lo:hi])
		r.funcPos = f.Pos
		funcs[f.Name] = r
		what := "function"
		if f.Entry {
			what = "kernel"
		}
		if r.local > MaxLocalFrame {
			errs = append(errs, &LimitError{Pos: f.Pos, Name: f.Name, Msg: fmt.Sprintf("%s %s: a local frame of %d bytes per thread (local arrays, spills), over the %d (512 KiB) a thread may have: ptxas refuses it",
				what, ShortName(DemangleName(f.Name)), r.local, MaxLocalFrame)})
		}
	}
	for _, f := range m.Funcs {
		k := byName[f.Name]
		if !f.Entry || f.Body == nil || k == nil || funcs[f.Name] == nil {
			continue
		}
		// The kernel's shared memory: its callees' too, each array once.
		seen := map[string]bool{f.Name: true}
		stack := []string{f.Name}
		usedShared := map[string]bool{}
		for len(stack) > 0 {
			r := funcs[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			if r == nil {
				continue
			}
			k.SharedBytes += r.shared
			for name := range r.refs {
				if v, ok := shared[name]; ok {
					usedShared[name] = true
					if v.Linkage == ptx.LinkExtern && varBytes(v) == 0 {
						k.DynamicShared = true
					}
				} else if _, ok := funcs[name]; ok && !seen[name] {
					seen[name] = true
					stack = append(stack, name)
				}
			}
		}
		for name := range usedShared {
			k.SharedBytes += varBytes(shared[name])
		}
		if k.SharedBytes > MaxStaticShared {
			errs = append(errs, &LimitError{Pos: f.Pos, Name: f.Name, Msg: fmt.Sprintf("kernel %s: %d bytes of static shared memory (__shared__ arrays, its callees' included), over the %d (48 KiB) a kernel may declare: ptxas refuses it; "+
				"declare the array extern __shared__ and size it per launch (rt.Config.SharedMem; above 48 KiB also Kernel.SetMaxDynamicSharedMemory)",
				ShortName(DemangleName(f.Name)), k.SharedBytes, MaxStaticShared)})
		}
		for _, d := range []struct {
			name string
			v    []int
		}{{".maxntid", f.MaxNTID}, {".reqntid", f.ReqNTID}} {
			n := uint64(1)
			for _, x := range d.v {
				n *= uint64(max(x, 0))
			}
			if len(d.v) > 0 && n > MaxThreadsPerBlock {
				errs = append(errs, &LimitError{Pos: f.Pos, Name: f.Name, Msg: fmt.Sprintf("kernel %s: %s %s is %d threads per block, over the %d of every device (__launch_bounds__ or the PTX's directive)",
					ShortName(DemangleName(f.Name)), d.name, joinDims(d.v), n, MaxThreadsPerBlock)})
			}
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return a.(*LimitError).Pos.Offset - b.(*LimitError).Pos.Offset })
	return errors.Join(errs...)
}

func joinDims(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// varBytes is a variable's size (0 for an unsized extern array).
func varBytes(v *ptx.Var) int {
	n := v.Elems()
	if n < 0 {
		return 0
	}
	return n * v.Type.Size()
}

// scanBody reads a body's text: the identifiers it uses (comments and
// strings skipped) and the sizes of the .shared and .local arrays it
// declares (".local .align 16 .b8 __local_depot0[64];", at the start of a
// statement).
func scanBody(text []byte) *resources {
	r := &resources{refs: map[string]bool{}}
	var words []string // the statement so far
	flush := func() {
		if len(words) > 0 && (words[0] == ".shared" || words[0] == ".local") {
			n := declBytes(words[1:])
			if words[0] == ".shared" {
				r.shared += n
			} else {
				r.local += n
			}
		}
		words = words[:0]
	}
	wordChar := func(c byte) bool {
		return c == '_' || c == '$' || c == '%' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(string(text[i+2:]), "*/")
			if end < 0 {
				return r
			}
			i += end + 4
		case c == '"':
			i++
			for i < len(text) && text[i] != '"' && text[i] != '\n' {
				i++
			}
			i++
		case c == ';' || c == '{' || c == '}' || c == ':':
			flush()
			i++
		case c == '[' || c == ']' || c == ',':
			words = append(words, string(c))
			i++
		case wordChar(c):
			j := i + 1
			for j < len(text) && wordChar(text[j]) {
				j++
			}
			w := string(text[i:j])
			if c != '%' && c != '.' && !('0' <= c && c <= '9') {
				r.refs[w] = true
			}
			if len(words) < 64 {
				words = append(words, w)
			}
			i = j
		default:
			i++
		}
	}
	flush()
	return r
}

// declBytes is the size of the arrays a declaration after its state space
// names: [.align N] [.vN] .type name[dims], name[dims]...
func declBytes(w []string) int {
	if len(w) >= 2 && w[0] == ".align" {
		w = w[2:]
	}
	vec := 1
	if len(w) > 0 && strings.HasPrefix(w[0], ".v") {
		vec, _ = strconv.Atoi(w[0][2:])
		w = w[1:]
	}
	if len(w) == 0 {
		return 0
	}
	t, ok := ptx.LookupType(strings.TrimPrefix(w[0], "."))
	if !ok {
		return 0
	}
	total, n := 0, -1 // n: the current name's element count
	for _, x := range w[1:] {
		switch {
		case x == ",":
			total += max(n, 0)
			n = -1
		case x == "[" || x == "]":
		case n < 0:
			n = vec * t.Size() // a name
		default:
			d, err := strconv.Atoi(x)
			if err != nil || d < 0 || d > 1<<40 {
				return total
			}
			n *= d
			if n > 1<<40 {
				return 1 << 40
			}
		}
	}
	return total + max(n, 0)
}
