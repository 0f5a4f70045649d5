// The texture and surface instructions (tex, tld4, txq, suld.b, sust.b,
// sust.p, sured.b, sured.p, suq): decoding, and execution against the
// texture and surface objects a kernel names by handle (texture.go),
// through the texture unit (internal/texunit: the sampler and the surface code).

package exec

import (
	"math"
	"math/bits"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
)

// Texture instruction kinds.
const (
	tkTex = iota
	tkTld4
	tkTxq
	tkSuld
	tkSust
	tkSuq
	tkSured
)

// texInstr is one decoded texture or surface instruction (opTex's aux
// indexes program.texs).
type texInstr struct {
	kind  int
	geom  int // texGeom*
	intc  bool
	comp  int // tld4's component
	query int
	grad  bool      // tex.grad (sampled at level 0 like plain tex)
	size  int       // suld/sust/sured: bytes per value
	cnt   int       // values
	mode  int       // surf*
	elems bool      // sust.p, sured.p: x counts elements, not bytes
	red   int       // sured: the operation (atAdd, atMin, atMax, atAnd, atOr)
	rcls  int       // sured: acU32, acS32, acU64 or acS64; -1 for .b32/.b64 (bitwise, or by the format for .p)
	h     uint32    // handle register
	dst   [4]uint32 // result registers (0: the sink)
	crd   [4]uint32 // coordinate registers
	val   [4]uint32 // sust's values
	offs  bool      // tex/tld4 with texel offsets (operand e)
	off   [3]uint32 // their registers
	resid bool      // tex/tld4 d|p: p, the residency predicate, is set
	zero  bool      // tex returns 0 in every channel (texZeroResult)
	pred  uint32    // p's slot
	what  string
}

var texGeoms = map[string]int{"1d": texunit.Geom1D, "2d": texunit.Geom2D, "3d": texunit.Geom3D, "a1d": texunit.GeomA1D,
	"a2d": texunit.GeomA2D, "cube": texunit.GeomCube, "acube": texunit.GeomACube}

// texCoordCount is the length of each geometry's coordinate vector.
var texCoordCount = [...]int{1, 2, 4, 2, 4, 4, 4}

// texInstrDecode decodes one texture or surface instruction.
func (dc *decoder) texInstrDecode(in *ptx.Instr, sc *scope, x inst) {
	ti := texInstr{geom: -1, cnt: 1, mode: texunit.SurfTrap, what: in.Op + "." + strings.Join(in.Mods, ".")}
	switch in.Op {
	case "tex":
		ti.kind = tkTex
	case "tld4":
		ti.kind = tkTld4
	case "txq":
		ti.kind = tkTxq
	case "suld":
		ti.kind = tkSuld
	case "sust":
		ti.kind = tkSust
	case "suq":
		ti.kind = tkSuq
	case "sured":
		ti.kind = tkSured
	}
	surf := ti.kind == tkSuld || ti.kind == tkSust || ti.kind == tkSured
	var rop, rty string // sured's operation and type
	for i, m := range in.Mods {
		if surf && i == 0 {
			// .b (unformatted: x in bytes) or .p (formatted: x in elements)
			switch {
			case m == "p" && ti.kind == tkSuld:
				dc.failIn(in, "formatted surface loads (suld.p) are not part of PTX; use suld.b")
			case m == "p":
				ti.elems = true
			case m != "b":
				dc.failIn(in, "want %s.b or %s.p", in.Op, in.Op)
			}
			continue
		}
		if ti.kind == tkSured {
			switch m {
			case "add", "min", "max", "and", "or":
				ti.red = map[string]int{"add": gpumath.AtAdd, "min": gpumath.AtMin, "max": gpumath.AtMax, "and": gpumath.AtAnd, "or": gpumath.AtOr}[m]
				rop = m
				continue
			case "u32", "s32", "u64", "s64", "b32", "b64":
				ti.size = map[byte]int{'3': 4, '6': 8}[m[1]]
				ti.rcls = map[string]int{"u32": gpumath.AcU32, "s32": gpumath.AcS32, "u64": gpumath.AcU64, "s64": gpumath.AcS64, "b32": -1, "b64": -1}[m]
				rty = m
				continue
			case "f16", "f32", "f64":
				dc.failIn(in, "sured has no .%s reductions (ptxas refuses them)", m)
			}
		}
		if g, ok := texGeoms[m]; ok {
			ti.geom = g
			continue
		}
		switch m {
		case "v2", "v4":
			ti.cnt = int(m[1] - '0')
		case "b8", "b16", "b32", "b64":
			if ti.kind == tkSuld || ti.kind == tkSust {
				ti.size = map[string]int{"b8": 1, "b16": 2, "b32": 4, "b64": 8}[m]
			}
		case "clamp":
			ti.mode = texunit.SurfClamp
		case "zero":
			ti.mode = texunit.SurfZero
		case "trap":
			ti.mode = texunit.SurfTrap
		case "width":
			ti.query = texunit.DimWidth
		case "height":
			ti.query = texunit.DimHeight
		case "depth":
			ti.query = texunit.DimDepth
		case "r", "g", "b", "a":
			if ti.kind == tkTld4 {
				ti.comp = strings.Index("rgba", m)
			}
		case "f32", "s32", "u32", "base", "level", "ca", "cg", "cs", "cv", "wb", "wt", "ci":
		case "grad":
			if ti.kind != tkTex {
				dc.failIn(in, "%s: modifier .grad is only for tex", ti.what)
			}
			ti.grad = true
		default:
			dc.failIn(in, "%s: modifier .%s is not supported", ti.what, m)
		}
	}
	if in.Op == "tex" && len(in.Mods) > 0 && in.Mods[0] == "level" && len(in.Operands) == 3 {
		// Textures have no mipmaps here, so tex.level samples level 0 and
		// its lod operand has no effect (as recorded on the H100).
		in = &ptx.Instr{Pos: in.Pos, Op: in.Op, Mods: in.Mods, Operands: in.Operands[:2]}
	}
	if ti.grad && len(in.Operands) < 4 {
		dc.failIn(in, "%s: want d, [handle, {coordinates}], dPdx, dPdy", ti.what)
	}
	if ti.grad && len(in.Operands) >= 4 {
		// tex.grad d, [t, c], dPdx, dPdy: likewise the gradients only
		// choose a level, and level 0 is the only one (the H100 answered
		// plain level-0 samples for every gradient, NaN, Inf and 1e30
		// included). They are checked and read, never used: .f32 vectors
		// of one element for 1d and a1d, two for 2d and a2d, four for 3d,
		// cube and acube.
		if ti.geom < 0 {
			dc.failIn(in, "%s: no geometry", ti.what)
		}
		want := [...]int{1, 2, 4, 1, 2, 4, 4}[ti.geom]
		for k, o := range in.Operands[2:4] {
			if n := len(dc.vecRegs(in, sc, o, ptx.F32, false)); n != want {
				dc.failIn(in, "%s: %s has %d elements, want %d", ti.what, [2]string{"dPdx", "dPdy"}[k], n, want)
			}
		}
		// (what follows the gradients, texel offsets, is left for
		// texExtras)
		in = &ptx.Instr{Pos: in.Pos, Op: in.Op, Mods: in.Mods, Operands: append(in.Operands[:2:2], in.Operands[4:]...)}
	}
	ops := in.Operands
	tuple := func(o ptx.Operand) (ptx.Operand, ptx.Operand) {
		switch t := o.(type) {
		case *ptx.Tuple:
			if len(t.Elems) == 2 {
				return t.Elems[0], t.Elems[1]
			}
		case *ptx.Addr:
			if t.Offset == 0 && t.Base != nil {
				return t.Base, nil
			}
		}
		dc.failIn(in, "%s: want [handle, {coordinates}]", ti.what)
		return nil, nil
	}
	handle := func(o ptx.Operand) uint32 {
		if _, ok := o.(*ptx.Reg); !ok {
			dc.failIn(in, "%s: only texture and surface objects (a 64-bit handle in a register) are supported, not .texref/.surfref variables", ti.what)
		}
		return dc.src(in, sc, o, ptx.U64)
	}
	coords := func(o ptx.Operand) {
		regs := dc.vecRegs(in, sc, o, ptx.B32, false)
		if ti.geom < 0 {
			dc.failIn(in, "%s: no geometry", ti.what)
		}
		if want := texCoordCount[ti.geom]; len(regs) != want {
			dc.failIn(in, "%s: %d coordinates, want %d", ti.what, len(regs), want)
		}
		copy(ti.crd[:], regs)
	}
	dsts := func(o ptx.Operand, n int) {
		regs := dc.vecRegs(in, sc, o, ptx.TypeNone, true)
		if len(regs) != n {
			dc.failIn(in, "%s: %d destinations, want %d", ti.what, len(regs), n)
		}
		copy(ti.dst[:], regs)
	}
	switch ti.kind {
	case tkTex, tkTld4:
		ti.intc = ti.kind == tkTex && in.Mods[len(in.Mods)-1] == "s32"
		if ti.intc && (ti.geom == texunit.GeomCube || ti.geom == texunit.GeomACube) {
			dc.failIn(in, "%s: cube map coordinates are .f32 (a direction), not .s32", ti.what)
		}
		if ti.kind == tkTld4 && ti.geom != texunit.Geom2D && ti.geom != texunit.GeomA2D && ti.geom != texunit.GeomCube && ti.geom != texunit.GeomACube {
			dc.failIn(in, "%s: tld4 is for .2d, .a2d, .cube and .acube", ti.what)
		}
		if len(ops) < 2 {
			dc.failIn(in, "%s: want d, [handle, {coordinates}]", ti.what)
		}
		d := ops[0]
		if pr, ok := d.(*ptx.Pair); ok {
			d = pr.First
			ti.resid = true
			ti.pred, _ = dc.pred(in, sc, pr.Second)
		}
		dsts(d, 4)
		h, c := tuple(ops[1])
		ti.h = handle(h)
		coords(c)
		dc.texExtras(in, sc, &ti, ops[2:])
		if ti.intc && ti.grad && ti.geom != texunit.Geom1D {
			// tex.grad.{2d,3d,a1d,a2d}.s32 does not fetch like tex.s32:
			// the H100 samples as with .f32 coordinates, reading the
			// coordinate registers' bits as f32 (small integers are
			// subnormal, so 0; negative ones NaN, so 0), the layer of
			// a1d/a2d an integer as always (clamped as unsigned to the
			// last layer), the offsets added to the texel index as on
			// plain tex, the texture's address modes applied (probe7:
			// 4,096 samples, rt/soft/testdata/tex/NOTES.md "probe7"; probe8:
			// 12,288 samples of 2d, 3d and a1d, the registers holding
			// floats and random bits, point and linear, clamp, wrap and
			// border, normalized or not, all equal to tex.f32 at that
			// float). tex.grad.1d.s32 reads 0 (texZeroResult).
			ti.intc = false
		}
	case tkTxq, tkSuq:
		if len(ops) != 2 {
			dc.failIn(in, "%s: want d, [handle]", ti.what)
		}
		if !strings.Contains(ti.what, ".width") && !strings.Contains(ti.what, ".height") && !strings.Contains(ti.what, ".depth") || strings.Contains(ti.what, ".level") {
			dc.failIn(in, "%s: only the width, height and depth queries are supported", ti.what)
		}
		dsts(ops[0], 1)
		h, _ := tuple(ops[1])
		ti.h = handle(h)
	case tkSured:
		suredCheck(dc, in, &ti, rop, rty)
		if len(ops) != 2 {
			dc.failIn(in, "want [handle, {coordinates}], value")
		}
		h, c := tuple(ops[0])
		ti.h = handle(h)
		coords(c)
		t := ptx.U32
		if ti.size == 8 {
			t = ptx.U64
		}
		ti.val[0] = dc.src(in, sc, ops[1], t)
	case tkSuld, tkSust:
		if ti.elems && ti.size != 4 {
			dc.failIn(in, "formatted surface stores (sust.p) take .b32 values")
		}
		if ti.size == 0 {
			dc.failIn(in, "%s: want .b8, .b16, .b32 or .b64", ti.what)
		}
		if ti.geom > texunit.GeomA2D {
			dc.failIn(in, "%s: cube surfaces are not supported", ti.what)
		}
		if len(ops) != 2 {
			dc.failIn(in, "%s: want two operands", ti.what)
		}
		if ti.kind == tkSuld {
			dsts(ops[0], ti.cnt)
			h, c := tuple(ops[1])
			ti.h = handle(h)
			coords(c)
		} else {
			h, c := tuple(ops[0])
			ti.h = handle(h)
			coords(c)
			regs := dc.vecRegs(in, sc, ops[1], ptx.TypeNone, false)
			if len(regs) != ti.cnt {
				dc.failIn(in, "%s: %d values, want %d", ti.what, len(regs), ti.cnt)
			}
			copy(ti.val[:], regs)
		}
	}
	x.op, x.aux = opTex, int32(len(dc.p.texs))
	dc.p.texs = append(dc.p.texs, ti)
	dc.emit(in, x)
}

// texExtras decodes the operands of tex and tld4 after [a, c] (and after
// tex.level's lod when optional operands follow it, or tex.grad's
// gradients; with none, the lod was dropped above): the optional texel
// offsets e (a vector of .s32, one element per dimension, four for .3d,
// the fourth ignored) and depth-compare value f (an .f32 scalar). CUDA's
// samplers have no compare mode and the H100 ignores f, but for
// tex.grad.1d, which then returns 0 (texZeroResult, as tex.grad.1d.s32
// does); the offsets are
// applied as texOffset says; the residency predicate of d|p is always
// true. Only the recorded combinations load (rt/soft/testdata/tex/NOTES.md,
// "Offsets, depth compare, residency", rounds 4 to 6 and probe7; see
// texExtrasRecorded); what ptxas refuses is refused with its message.
func (dc *decoder) texExtras(in *ptx.Instr, sc *scope, ti *texInstr, ops []ptx.Operand) {
	var level, grad bool
	for _, m := range in.Mods {
		level = level || m == "level"
		grad = grad || m == "grad"
	}
	if level && len(ops) > 0 {
		if _, ok := ops[0].(*ptx.Vec); ok {
			dc.failIn(in, "%s: the lod is a scalar", ti.what)
		}
		dc.src(in, sc, ops[0], ptx.B32) // checked, not used
		ops = ops[1:]
	}
	var offs, depth ptx.Operand
	if len(ops) > 0 {
		if _, ok := ops[0].(*ptx.Vec); ok {
			offs, ops = ops[0], ops[1:]
		}
	}
	if len(ops) > 0 {
		if _, ok := ops[0].(*ptx.Vec); ok {
			dc.failIn(in, "%s: the depth-compare operand is an .f32 scalar", ti.what)
		}
		depth, ops = ops[0], ops[1:]
	}
	if len(ops) > 0 {
		dc.failIn(in, "%s: too many operands", ti.what)
	}
	if msg := texExtrasRecorded(ti, level, grad, offs != nil, depth != nil); msg != "" {
		dc.failIn(in, "%s: %s", ti.what, msg)
	}
	ti.zero = ti.kind == tkTex && texunit.ZeroResult(ti.geom, grad, depth != nil, ti.intc)
	if offs != nil {
		// (tex.1d's offset register is not masked to 4 bits: its bits
		// 4-7 are a y offset, texunit; immediates mean the same,
		// {-3} and {100} recorded)
		regs := dc.vecRegs(in, sc, offs, ptx.S32, false)
		if want := [...]int{1, 2, 4, 1, 2, 0, 0}[ti.geom]; len(regs) != want {
			dc.failIn(in, "%s: %d offsets, want %d", ti.what, len(regs), want)
		}
		ti.offs = true
		copy(ti.off[:], regs) // (3d: the fourth is ignored)
	}
	if depth != nil {
		dc.src(in, sc, depth, ptx.F32) // checked, not used
	}
}

// texExtrasRecorded says why a combination of texel offsets, depth
// compare and residency predicate with tex or tld4 of ti's geometry is
// refused ("" if it loads). Rounds 3 to 6 (tex2-f, tex2-g, tex2-k, tex2-m)
// and probe7 (rt/soft/testdata/tex/NOTES.md) recorded every combination on the
// H100 that PTX allows and ptxas accepts, each of offsets, depth compare
// and d|p alone and with the others, on every geometry, for tex,
// tex.level, tex.grad and tld4, with .f32 or .s32 coordinates; all of
// them load. Refused:
//   - what PTX forbids: offsets on cube maps;
//   - what ptxas refuses (probe7.txt, probe6.txt, probe5.txt): .s32
//     coordinates on tex.level, with or without other operands
//     ("Arguments mismatch for instruction 'tex.level'"); a depth compare
//     with .s32 coordinates (on tex.grad: "Arguments mismatch for
//     instruction 'tex.grad'", on tex: the same for 'tex'), on tex.3d
//     ("Illegal modifier '.3d' for instruction 'tex'"), tex.level.3d and
//     tex.grad.3d (the same for 'tex.level' and 'tex.grad').
//
// A depth compare changes nothing (CUDA's samplers have no compare mode)
// but on tex.grad.1d, which returns 0 in every channel (texZeroResult),
// and the residency predicate is true with the sample's channels (those
// zeros included), whatever the other operands.
func texExtrasRecorded(ti *texInstr, level, grad, offs, depth bool) string {
	g := ti.geom
	if offs && (g == texunit.GeomCube || g == texunit.GeomACube) {
		return "texel offsets on cube maps are not allowed"
	}
	if ti.intc && level {
		return "ptxas refuses .s32 coordinates on tex.level (\"Arguments mismatch for instruction 'tex.level'\")"
	}
	if depth && ti.intc {
		name := "tex"
		if grad {
			name = "tex.grad"
		}
		return "ptxas refuses a depth-compare operand with .s32 coordinates (\"Arguments mismatch for instruction '" + name + "'\")"
	}
	if depth && ti.kind == tkTex && g == texunit.Geom3D {
		name := "tex"
		if level {
			name = "tex.level"
		}
		if grad {
			name = "tex.grad"
		}
		return "ptxas refuses a depth-compare operand on " + name + ".3d (\"Illegal modifier '.3d' for instruction '" + name + "'\")"
	}
	return ""
}

// TexObject is a texture or surface object as a kernel's instructions see
// it: the memory it reads, in the layout of rt/soft's arrays (element
// (x, y, z) at Base + z*slice + y*Pitch + x*element size), and how it
// samples.
type TexObject struct {
	Surface bool // a surface object (Tex is zero)

	Kind     rt.ResourceKind
	Format   rt.ArrayFormat
	Channels int
	// Dims is the coordinates an access takes (1, 2 or 3; a cube map's 3
	// are a direction), not counting the layer index.
	Dims          int
	Layered, Cube bool
	// Width, Height and Depth are in elements, each at least 1; Depth counts
	// the 3-D depth, the layers, the 6 faces of a cube or 6×layers of a
	// layered cube. Layers is the layer count of a layered array (0 if not
	// layered).
	Width, Height, Depth, Layers int
	// Base is the device address of element (0, 0, 0); Pitch the bytes
	// between rows.
	Base  uint64
	Pitch uint64
	// Size is the bytes from Base that the resource spans.
	Size uint64

	Tex rt.TextureDesc // as created (zero for a surface)
}

// texViewOf describes a texture or surface object to the sampler.
func texViewOf(b *TexObject, data []byte) *texunit.View {
	v := &texunit.View{Data: data, NChan: b.Channels, W: b.Width, H: max(b.Height, 1), D: 1, Pitch: int(b.Pitch)}
	f := b.Format
	switch {
	case f >= rt.FormatUnorm8 && f <= rt.FormatSnorm16X4:
		k := int(f-rt.FormatUnorm8) / 3
		v.Chan = []int{texunit.ChanUnsigned, texunit.ChanUnsigned, texunit.ChanSigned, texunit.ChanSigned}[k]
		v.Bits = []int{8, 16, 8, 16}[k]
		v.ReadNorm = true
	case f == rt.FormatHalf || f == rt.FormatFloat:
		v.Chan, v.Bits = texunit.ChanFloat, f.Size()*8
	default:
		v.Chan, v.Bits = texunit.ChanUnsigned, f.Size()*8
		if f.Signed() {
			v.Chan = texunit.ChanSigned
		}
	}
	switch b.Kind {
	case rt.ResourceLinear:
		v.Res = texunit.ResLinear
	case rt.ResourcePitch2D:
		v.Res = texunit.ResPitch2D
	default:
		v.Res = texunit.ResArray
	}
	switch {
	case b.Cube && b.Layered:
		v.Geom, v.Layers = texunit.GeomACube, b.Depth
	case b.Cube:
		v.Geom, v.Layers = texunit.GeomCube, b.Depth
	case b.Layered && b.Dims == 1:
		v.Geom, v.Layers = texunit.GeomA1D, b.Layers
	case b.Layered:
		v.Geom, v.Layers = texunit.GeomA2D, b.Layers
	case b.Dims == 3:
		v.Geom, v.D = texunit.Geom3D, max(b.Depth, 1)
	case b.Dims == 2:
		v.Geom = texunit.Geom2D
	default:
		v.Geom = texunit.Geom1D
	}
	if b.Dims == 1 {
		v.H = 1
	}
	if !b.Surface {
		t := b.Tex
		for i := range v.Addr {
			v.Addr[i] = int(t.AddressMode[i])
		}
		v.Linear = t.Filter == rt.FilterLinear
		v.Norm = t.Flags&rt.TexNormalizedCoords != 0
		v.SRGB = t.Flags&rt.TexSRGB != 0
		v.Seamless = t.Flags&rt.TexSeamlessCubemap != 0
		if t.Flags&rt.TexReadAsInteger == 0 && v.Bits < 32 && v.Chan != texunit.ChanFloat {
			v.ReadNorm = true
		}
		for i := range v.Border {
			v.Border[i] = math.Float32bits(t.BorderColor[i])
		}
	}
	return v
}

// texExec runs one texture or surface instruction for the lanes of m.
func (c *cta) texExec(w *warp, in *inst, m uint32) bool {
	ti := &c.p.texs[in.aux]
	hs := lanes(w.r, ti.h)
	var lastH uint64
	var v *texunit.View
	var b *TexObject
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		h := hs[l]
		if v == nil || h != lastH {
			lastH = h
			surface := ti.kind >= tkSuld
			b = c.l.Host.TexObject(h, surface)
			if b == nil {
				// A handle that names no live object of the launch's
				// context (never made, another context's, destroyed): the
				// H200 faults on none of these; it reads zeros and drops
				// stores (rt/cgo's TestTextureOfAnotherContextGPU; a
				// destroyed object's stale descriptor still reads its
				// texels there, zeros here).
				nullTexResult(w, ti, l)
				v = nil
				continue
			}
			data, err := c.l.Mem.Span("texture", b.Base, b.Size)
			if err != nil {
				c.fault = &fault{kind: fIllegalAddress, warp: w.id, lane: l, pc: c.pc, addr: b.Base,
					msg: sprintf("%s: the memory of object %#x is gone: %v", ti.what, h, err)}
				return false
			}
			v = texViewOf(b, data)
		}
		var crd [4]uint32
		if ti.geom >= 0 {
			for i := 0; i < texCoordCount[ti.geom]; i++ {
				crd[i] = uint32(w.r[ti.crd[i]+uint32(l)])
			}
		}
		var out [4]uint32
		switch ti.kind {
		case tkTex, tkTld4:
			op := texunit.Op{Geom: ti.geom, IntCoords: ti.intc, Gather: ti.kind == tkTld4, Comp: ti.comp, Offs: ti.offs}
			if ti.offs {
				for i := 0; i < [...]int{1, 2, 3, 1, 2, 0, 0}[ti.geom]; i++ {
					op.Off[i] = int32(w.r[ti.off[i]+uint32(l)])
				}
			}
			switch {
			case ti.zero:
				// (out stays 0: tex.grad.1d with a depth compare)
			case op.Gather:
				out = v.GatherOp(op, crd)
			default:
				out = v.Sample(op, crd)
			}
		case tkTxq, tkSuq:
			w.r[ti.dst[0]+uint32(l)] = uint64(texunit.Dims(v, ti.kind == tkSuq, ti.query))
			continue
		case tkSuld, tkSust, tkSured:
			n := ti.size * ti.cnt
			bc, cls := crd, ti.rcls
			if ti.kind == tkSured && ti.elems {
				// sured.p: x counts accesses of ti.size bytes, whatever
				// the format (texunit.SurfRedP)
				cls = texunit.SurfRedP(v, ti.size)
			} else if ti.elems {
				// x counts elements (sust.p)
				bc, n = texunit.SurfElemX(v, ti.geom, crd, ti.mode), v.TexelBytes()
			} else if ti.kind == tkSured && cls < 0 {
				cls = gpumath.AcU32 // .and, .or: bitwise
			}
			var st int
			if ti.kind == tkSured {
				// the last whole access in the row under .clamp; under
				// .trap one that does not fit is an illegal address
				// (texunit.SurfRedOffset)
				_, st = texunit.SurfRedOffset(v, ti.geom, crd, ti.size, ti.mode, ti.elems)
			} else {
				_, st = v.SurfOffset(ti.geom, bc, n, ti.mode)
			}
			switch st {
			case texunit.SurfMisaligned:
				c.fault = &fault{kind: fMisaligned, warp: w.id, lane: l, pc: c.pc, addr: uint64(crd[0]), size: uint64(n),
					msg: sprintf("%s: x = %d bytes is not a multiple of the %d-byte access", ti.what, int32(crd[0]), n)}
				return false
			case texunit.SurfOutOfRange:
				msg := sprintf("%s: coordinates %d are outside the %d×%d×%d surface", ti.what, crd, v.W, v.H, v.D)
				if rb := v.W * v.TexelBytes(); ti.kind == tkSured && rb%n != 0 {
					unit := "bytes"
					if ti.elems {
						unit = sprintf("%d-byte accesses", n)
					}
					msg += sprintf(": x counts %s, and its rows of %d bytes hold %d whole %d-byte accesses; an access that does not fit in the row, whole or in part, is an illegal address under .trap", unit, rb, rb/n, n)
				}
				c.fault = &fault{kind: fIllegalAddress, warp: w.id, lane: l, pc: c.pc, addr: uint64(crd[0]), size: uint64(n),
					msg: msg}
				return false
			}
			if ti.kind == tkSured {
				texunit.SurfReduce(v, ti.geom, crd, ti.size, ti.mode, ti.elems, ti.red, cls, w.r[ti.val[0]+uint32(l)])
				continue
			}
			if ti.kind == tkSust && ti.elems {
				var vals [4]uint32
				for i := 0; i < ti.cnt; i++ {
					vals[i] = uint32(w.r[ti.val[i]+uint32(l)])
				}
				texunit.SurfStoreP(v, ti.geom, crd, ti.cnt, ti.mode, vals)
				continue
			}
			if ti.kind == tkSust {
				var vals [4]uint32
				for i := 0; i < ti.cnt; i++ {
					x := w.r[ti.val[i]+uint32(l)]
					if ti.size == 8 {
						vals[2*i], vals[2*i+1] = uint32(x), uint32(x>>32)
					} else {
						vals[i] = uint32(x)
					}
				}
				texunit.SurfStore(v, ti.geom, crd, ti.size, ti.cnt, ti.mode, vals)
				continue
			}
			o := texunit.SurfLoad(v, ti.geom, crd, ti.size, ti.cnt, ti.mode)
			for i := 0; i < ti.cnt; i++ {
				x := uint64(o[i])
				if ti.size == 8 {
					x = uint64(o[2*i]) | uint64(o[2*i+1])<<32
				}
				w.r[ti.dst[i]+uint32(l)] = x
			}
			continue
		}
		for i := 0; i < 4; i++ {
			w.r[ti.dst[i]+uint32(l)] = uint64(out[i])
		}
	}
	if ti.resid {
		if texunit.Resident {
			w.pr[ti.pred] |= m
		} else {
			w.pr[ti.pred] &^= m
		}
	}
	return true
}

// nullTexResult is what lane l of a texture or surface instruction gets
// from a handle that names no object: zeros, and no store.
func nullTexResult(w *warp, ti *texInstr, l int) {
	switch ti.kind {
	case tkSust, tkSured:
	case tkSuld:
		for i := 0; i < ti.cnt; i++ {
			w.r[ti.dst[i]+uint32(l)] = 0
		}
	case tkTxq, tkSuq:
		w.r[ti.dst[0]+uint32(l)] = 0
	default:
		for i := 0; i < 4; i++ {
			w.r[ti.dst[i]+uint32(l)] = 0
		}
	}
}

// suredCheck refuses the sured forms ptxas refuses (CUDA 13.0, probed on
// the H100's machine: rt/soft/testdata/tex/probe-forms.txt), which are the PTX
// ISA's rules: sured.b takes .add on .u32, .s32, .u64; .min and .max on
// .u32, .s32, .u64, .s64; .and and .or on .b32; sured.p takes .b32 for
// every operation and .b64 for .min and .max; the geometry is .1d, .2d or
// .3d.
func suredCheck(dc *decoder, in *ptx.Instr, ti *texInstr, op, ty string) {
	if ti.geom < 0 || ti.geom > texunit.Geom3D {
		dc.failIn(in, "sured takes .1d, .2d or .3d")
	}
	if ti.cnt != 1 {
		dc.failIn(in, "sured takes one value, not a vector")
	}
	if op == "" || ty == "" {
		dc.failIn(in, "want sured.{b,p}.op.geom.type (op .add, .min, .max, .and or .or)")
	}
	ok := false
	switch {
	case ti.elems:
		ok = ti.rcls < 0 && (ti.size == 4 || ti.red == gpumath.AtMin || ti.red == gpumath.AtMax)
	case ti.red == gpumath.AtAdd:
		ok = ti.rcls == gpumath.AcU32 || ti.rcls == gpumath.AcS32 || ti.rcls == gpumath.AcU64
	case ti.red == gpumath.AtMin, ti.red == gpumath.AtMax:
		ok = ti.rcls >= 0
	default: // and, or
		ok = ti.rcls < 0 && ti.size == 4
	}
	if !ok {
		want := map[int]string{gpumath.AtAdd: ".u32, .s32 or .u64", gpumath.AtMin: ".u32, .s32, .u64 or .s64", gpumath.AtMax: ".u32, .s32, .u64 or .s64",
			gpumath.AtAnd: ".b32", gpumath.AtOr: ".b32"}[ti.red]
		kind := "b"
		if ti.elems {
			kind, want = "p", ".b32"
			if ti.red == gpumath.AtMin || ti.red == gpumath.AtMax {
				want = ".b32 or .b64"
			}
		}
		dc.failIn(in, "sured.%s.%s takes %s, not .%s (ptxas refuses the rest)", kind, op, want, ty)
	}
}
