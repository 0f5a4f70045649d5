// PTX ISA 8.x forms decoded outside the generated tables: each is a pure
// function of up to three source registers' bits (gpumath's fp8 conversions,
// video.go and the half-precision extras below), run by the generated Ext
// op, whose in.aux indexes extFns. tensormap.replace (tensormap_replace.go) is a memory
// operation and goes through the bulk-copy machinery instead.
//
// Every form here was run on an H100 (rt/soft/testdata/isa8.json.gz, replayed
// bit-exact by isa8_test.go); forms that the H100's JIT refuses for sm_90
// are refused here with its reason.

package exec

import (
	"math"
	"sort"
	"strings"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// extFn computes a destination from the sources' bits and the
// instruction's imm (the parameters of a family such as scalar video).
type extFn func(a, b, c uint64, imm int64) uint64

// extForm is one registered form: its function and its sources' types (the
// destination is operand 0).
type extForm struct {
	fn   int32
	srcs []ptx.Type
}

var (
	extFns    []extFn
	extForms  = map[string]extForm{}
	extRefuse = map[string]string{}
)

// extKey is an instruction's opcode, then its modifiers sorted, then its
// types in order: PTX lets modifiers come in more than one order.
func extKey(op string, mods []string) string {
	var fl, ty []string
	for _, s := range mods {
		if _, ok := ptx.LookupType(s); ok {
			ty = append(ty, s)
		} else {
			fl = append(fl, s)
		}
	}
	sort.Strings(fl)
	return strings.Join(append(append([]string{op}, fl...), ty...), ".")
}

func keyOf(form string) string {
	p := strings.Split(form, ".")
	return extKey(p[0], p[1:])
}

// regExt registers form ("cvt.rn.satfinite.e4m3x2.f32") with its sources'
// types.
func regExt(form string, f func(a, b, c uint64) uint64, srcs ...ptx.Type) {
	k := keyOf(form)
	if _, dup := extForms[k]; dup {
		panic("ext form registered twice: " + form)
	}
	extForms[k] = extForm{fn: regExtFn(func(a, b, c uint64, _ int64) uint64 { return f(a, b, c) }), srcs: srcs}
}

// regExtFn adds f to extFns (at init only) and returns its index.
func regExtFn(f extFn) int32 {
	extFns = append(extFns, f)
	return int32(len(extFns) - 1)
}

// refuseExt records why a form is refused.
func refuseExt(form, why string) { extRefuse[keyOf(form)] = why }

// extInstr decodes in if it is one of the forms here (or one refused with
// a reason), reporting whether it did.
func (dc *decoder) extInstr(in *ptx.Instr, sc *scope, m modset, x inst) bool {
	switch in.Op {
	case "stacksave", "stackrestore", "alloca":
		dc.stackInstr(in, sc, m, x) // alloca.go
		return true
	case "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset":
		dc.scalarVideo(in, sc, m, x)
		return true
	case "tensormap":
		if m.flags["replace"] {
			dc.tensormapReplace(in, sc, m, x)
			return true
		}
		return false
	case "min", "max":
		if len(in.Operands) == 4 {
			dc.failIn(in, "%s with three sources (PTX ISA 8.8) needs sm_100 or later", in.Op)
		}
	case "cvt":
		if m.flags["rs"] {
			dc.failIn(in, "cvt.rs (stochastic rounding) needs sm_100a or later")
		}
	case "fma":
	default:
		return false
	}
	k := extKey(in.Op, in.Mods)
	if why, ok := extRefuse[k]; ok {
		dc.failIn(in, "%s", why)
	}
	f, ok := extForms[k]
	if !ok {
		return false
	}
	dc.nops(in, 1+len(f.srcs))
	x.op, x.aux = genOps["ext"].op, f.fn
	x.d = dc.dst(in, sc, in.Operands[0])
	fields := []*uint32{&x.a, &x.b, &x.c}
	for i, t := range f.srcs {
		*fields[i] = dc.src(in, sc, in.Operands[1+i], t)
	}
	dc.emit(in, x)
	return true
}

// Half-precision extras: .relu and .oob on fma, .relu and .satfinite on
// conversions to f16/bf16, .xorsign.abs on min/max, min/max.relu.s32 and
// the conversions between f16 and bf16.

// relu16 is a half result with .relu: negative values (and -0) become +0,
// NaN the canonical NaN.
func relu16(f gpumath.SmallFmt, b uint64) uint64 {
	b &= 0xffff
	if isNaN16(f, b) {
		return gpumath.NaN16
	}
	if b&0x8000 != 0 {
		return 0
	}
	return b
}

func isNaN16(f gpumath.SmallFmt, b uint64) bool {
	e := uint64(1)<<f.Ebits - 1
	return b>>f.Mant&e == e && b&(1<<f.Mant-1) != 0
}

// satfinite16 rounds x to the format, clamping infinities and overflow to
// the largest finite value of the sign (NaN: canonical).
func satfinite16(f gpumath.SmallFmt, x float64, rnd int) uint64 {
	if x != x {
		return gpumath.NaN16
	}
	b := f.Round(x, rnd)
	e := uint64(1)<<f.Ebits - 1
	if b>>f.Mant&e == e { // infinity
		return b&0x8000 | (e-1)<<f.Mant | (1<<f.Mant - 1)
	}
	return b
}

// oobNaN16 is the magnitude of the NaN that fma.rn.oob treats as an
// out-of-bounds element, of either sign: the halves of the pattern tensor
// copies fill with (tensorcopy.go), in f16 and in bf16, as the H100
// computes (other NaNs propagate).
const oobNaN16 = oobNaN & 0x7fff

// fmaOOB is fma.rn.oob: +0 when a or b is the OOB NaN, else fma.rn.
func fmaOOB(f gpumath.SmallFmt, a, b, c uint64) uint64 {
	if a&0x7fff == oobNaN16 || b&0x7fff == oobNaN16 {
		return 0
	}
	return gpumath.Hfma(f, a, b, c, gpumath.RN)
}

// xorsignAbs is min/max.xorsign.abs: the min or max of the magnitudes,
// with the XOR of the operands' signs. f is nil for f32.
func xorsignAbs(f *gpumath.SmallFmt, a, b uint64, isMax, nanProp bool, ftz bool) uint64 {
	sb := uint64(0x8000)
	if f == nil {
		sb = 0x80000000
	}
	m := sb | (sb - 1)
	a, b = a&m, b&m
	s := (a ^ b) & sb
	x, y := a&^sb, b&^sb
	var r uint64
	if f == nil {
		fx, fy := math.Float32frombits(uint32(x)), math.Float32frombits(uint32(y))
		if ftz {
			fx, fy = gpumath.Ftz32(fx), gpumath.Ftz32(fy)
		}
		if isMax {
			r = uint64(math.Float32bits(gpumath.Max32(fx, fy, nanProp)))
		} else {
			r = uint64(math.Float32bits(gpumath.Min32(fx, fy, nanProp)))
		}
		if r&0x7fffffff > 0x7f800000 {
			return r
		}
		return r | s
	}
	if ftz {
		x, y = gpumath.Ftz16(x), gpumath.Ftz16(y)
	}
	if isMax {
		r = gpumath.Hmax(*f, x, y, nanProp)
	} else {
		r = gpumath.Hmin(*f, x, y, nanProp)
	}
	if isNaN16(*f, r) {
		return r
	}
	return r | s
}

func lift2(f func(a, b, c uint64) uint64) func(a, b, c uint64) uint64 {
	return func(a, b, c uint64) uint64 {
		return gpumath.Pack16(f(gpumath.Lo16(a), gpumath.Lo16(b), gpumath.Lo16(c)), f(gpumath.Hi16(a), gpumath.Hi16(b), gpumath.Hi16(c)))
	}
}

func init() {
	for _, h := range []struct {
		t string
		f gpumath.SmallFmt
		x bool
	}{{"f16", gpumath.F16, false}, {"bf16", gpumath.BF16, false}, {"f16x2", gpumath.F16, true}, {"bf16x2", gpumath.BF16, true}} {
		f := h.f
		reg := func(form string, fn func(a, b, c uint64) uint64, n int) {
			t := ptx.B16
			if h.x {
				t = ptx.B32
				fn = lift2(fn)
			}
			srcs := []ptx.Type{t, t, t}[:n]
			regExt(form+"."+h.t, fn, srcs...)
		}
		reg("fma.rn.relu", func(a, b, c uint64) uint64 { return relu16(f, gpumath.Hfma(f, a, b, c, gpumath.RN)) }, 3)
		reg("fma.rn.oob", func(a, b, c uint64) uint64 { return fmaOOB(f, a, b, c) }, 3)
		reg("fma.rn.oob.relu", func(a, b, c uint64) uint64 { return relu16(f, fmaOOB(f, a, b, c)) }, 3)
		fp := &h.f
		ftzs := []bool{false}
		if f == gpumath.F16 {
			ftzs = append(ftzs, true)
			reg("fma.rn.ftz.relu", func(a, b, c uint64) uint64 {
				return relu16(f, gpumath.Ftz16(gpumath.Hfma(f, gpumath.Ftz16(a), gpumath.Ftz16(b), gpumath.Ftz16(c), gpumath.RN)))
			}, 3)
		}
		for _, ftz := range ftzs {
			for _, nan := range []bool{false, true} {
				md := ""
				if ftz {
					md += ".ftz"
				}
				if nan {
					md += ".NaN"
				}
				ftz, nan := ftz, nan
				reg("min"+md+".xorsign.abs", func(a, b, _ uint64) uint64 { return xorsignAbs(fp, a, b, false, nan, ftz) }, 2)
				reg("max"+md+".xorsign.abs", func(a, b, _ uint64) uint64 { return xorsignAbs(fp, a, b, true, nan, ftz) }, 2)
			}
		}
		refuseExt("min.relu."+h.t, "min.relu is defined on .s16x2 and .s32 only (ptxas: unexpected instruction types for min.relu."+h.t+")")
		refuseExt("max.relu."+h.t, "max.relu is defined on .s16x2 and .s32 only (ptxas: unexpected instruction types for max.relu."+h.t+")")
	}
	for _, ftz := range []bool{false, true} {
		for _, nan := range []bool{false, true} {
			md := ""
			if ftz {
				md += ".ftz"
			}
			if nan {
				md += ".NaN"
			}
			ftz, nan := ftz, nan
			regExt("min"+md+".xorsign.abs.f32", func(a, b, _ uint64) uint64 { return xorsignAbs(nil, a, b, false, nan, ftz) }, ptx.B32, ptx.B32)
			regExt("max"+md+".xorsign.abs.f32", func(a, b, _ uint64) uint64 { return xorsignAbs(nil, a, b, true, nan, ftz) }, ptx.B32, ptx.B32)
		}
	}
	regExt("min.relu.s32", func(a, b, _ uint64) uint64 { return uint64(uint32(max(min(int32(a), int32(b)), 0))) }, ptx.S32, ptx.S32)
	regExt("max.relu.s32", func(a, b, _ uint64) uint64 { return uint64(uint32(max(int32(a), int32(b), 0))) }, ptx.S32, ptx.S32)

	// Conversions from f32 to halves with .relu and .satfinite: .rn and .rz.
	for _, h := range []struct {
		t string
		f gpumath.SmallFmt
	}{{"f16", gpumath.F16}, {"bf16", gpumath.BF16}} {
		f := h.f
		for _, r := range []struct {
			n string
			m int
		}{{"rn", gpumath.RN}, {"rz", gpumath.RZ}} {
			rnd := r.m
			for _, md := range []string{".relu", ".satfinite", ".relu.satfinite"} {
				relu, sat := strings.Contains(md, "relu"), strings.Contains(md, "satfinite")
				one := func(a uint64) uint64 {
					x := float64(gpumath.F32(a))
					var v uint64
					if sat {
						v = satfinite16(f, x, rnd)
					} else {
						v = f.Round(x, rnd)
					}
					if relu {
						v = relu16(f, v)
					}
					return v
				}
				regExt("cvt."+r.n+md+"."+h.t+".f32", func(a, _, _ uint64) uint64 { return one(a) }, ptx.F32)
				// The x2 form puts a in the upper half.
				regExt("cvt."+r.n+md+"."+h.t+"x2.f32", func(a, b, _ uint64) uint64 { return gpumath.Pack16(one(b), one(a)) }, ptx.F32, ptx.F32)
			}
		}
	}
	for _, r := range []struct {
		n string
		m int
	}{{"rn", gpumath.RN}, {"rz", gpumath.RZ}, {"rm", gpumath.RM}, {"rp", gpumath.RP}} {
		rnd := r.m
		regExt("cvt."+r.n+".bf16.f16", func(a, _, _ uint64) uint64 { return gpumath.BF16.Round(gpumath.H2F(a), rnd) }, ptx.B16)
		regExt("cvt."+r.n+".f16.bf16", func(a, _, _ uint64) uint64 { return gpumath.F16.Round(gpumath.BH2F(a), rnd) }, ptx.B16)
	}

}

func init() {
	for _, t := range []struct {
		n string
		f gpumath.FP8Format
	}{{"e4m3x2", gpumath.E4M3}, {"e5m2x2", gpumath.E5M2}} {
		f := t.f
		for _, relu := range []bool{false, true} {
			md := ""
			if relu {
				md = ".relu"
			}
			relu := relu
			// a goes to the upper byte, b to the lower.
			regExt("cvt.rn.satfinite"+md+"."+t.n+".f32", func(a, b, _ uint64) uint64 {
				return f.ToFP8(float64(gpumath.F32(a)), relu)<<8 | f.ToFP8(float64(gpumath.F32(b)), relu)
			}, ptx.F32, ptx.F32)
			regExt("cvt.rn.satfinite"+md+"."+t.n+".f16x2", func(a, _, _ uint64) uint64 {
				return f.ToFP8(gpumath.H2F(gpumath.Hi16(a)), relu)<<8 | f.ToFP8(gpumath.H2F(gpumath.Lo16(a)), relu)
			}, ptx.B32)
			regExt("cvt.rn"+md+".f16x2."+t.n, func(a, _, _ uint64) uint64 {
				return gpumath.Pack16(f.ToHalf(a, relu), f.ToHalf(a>>8, relu))
			}, ptx.B16)
			refuseExt("cvt.rn"+md+"."+t.n+".f32", "cvt to ."+t.n+" needs .satfinite on sm_90 (ptxas: '.satfinite' modifier required)")
			refuseExt("cvt.rn.satfinite"+md+"."+t.n+".bf16x2", "cvt from .bf16x2 to ."+t.n+" needs sm_100a or later")
			refuseExt("cvt.rn"+md+".bf16x2."+t.n, "cvt from ."+t.n+" to .bf16x2 needs sm_100a or later")
		}
	}

	// cvt.pack.sat: a and b saturated into the low bits, a above b; with a
	// third source, c's low bits shifted above them.
	for _, t := range []string{"u16", "s16"} {
		signed := t[0] == 's'
		regExt("cvt.pack.sat."+t+".s32", func(a, b, _ uint64) uint64 {
			return gpumath.PackSat(a, 16, signed)<<16 | gpumath.PackSat(b, 16, signed)
		}, ptx.S32, ptx.S32)
	}
	for _, t := range []struct {
		n    string
		bits uint
	}{{"u8", 8}, {"s8", 8}, {"u4", 4}, {"s4", 4}, {"u2", 2}, {"s2", 2}} {
		n, signed := t.bits, t.n[0] == 's'
		regExt("cvt.pack.sat."+t.n+".s32.b32", func(a, b, c uint64) uint64 {
			return uint64(uint32(c<<(2*n) | gpumath.PackSat(a, n, signed)<<n | gpumath.PackSat(b, n, signed)))
		}, ptx.S32, ptx.S32, ptx.B32)
	}
}
