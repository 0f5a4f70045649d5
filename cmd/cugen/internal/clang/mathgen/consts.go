package mathgen

import (
	"bytes"
	"fmt"
	"math/big"
)

// Const is a constant of the device library, derived at constPrec bits and
// rendered in one of several forms:
//
//	"d", "f"        the value rounded to double / float
//	"dd", "ff"      hi + lo, hi the rounded value, lo the rounded rest
//	"split:N"       three doubles, the first with only N significant bits so
//	                that k·first is exact for |k| < 2^(53-N) (Cody–Waite)
//	"fsplit:N"      the same in floats
type Const struct {
	Name string
	Form string
	F    func(prec uint) *Float
}

const constPrec = 300

func cpi(p uint) *Float { return Pi(p) }

func frac(n, d int64) func(uint) *Float {
	return func(p uint) *Float { return quo(p, newI(p, n), newI(p, d)) }
}

// Consts is every constant the device library names.
var Consts = []Const{
	{"LN2", "dd", Ln2},
	{"LN2_CW", "split:42", Ln2},
	{"LOG2E", "dd", func(p uint) *Float { return quo(p, newI(p, 1), Ln2(p)) }},
	{"LN10", "dd", func(p uint) *Float { return Log(p, newI(p, 10)) }},
	{"LOG10_2_CW", "split:42", func(p uint) *Float { return quo(p, Ln2(p), Log(p, newI(p, 10))) }},
	{"LOG2_10", "d", func(p uint) *Float { return quo(p, Log(p, newI(p, 10)), Ln2(p)) }},
	{"INV_LN10", "dd", func(p uint) *Float { return quo(p, newI(p, 1), Log(p, newI(p, 10))) }},
	{"PI", "dd", cpi},
	{"PIO2", "dd", func(p uint) *Float { return quo(p, Pi(p), newI(p, 2)) }},
	{"PIO2_CW", "split:27", func(p uint) *Float { return quo(p, Pi(p), newI(p, 2)) }},
	{"PIO4", "dd", func(p uint) *Float { return quo(p, Pi(p), newI(p, 4)) }},
	{"TWO_OVER_PI", "d", func(p uint) *Float { return quo(p, newI(p, 2), Pi(p)) }},
	{"ATAN_HALF", "dd", func(p uint) *Float { return Atan(p, newF(p, 0.5)) }},
	{"ATAN_1P5", "dd", func(p uint) *Float { return Atan(p, newF(p, 1.5)) }},
	{"TWO_OVER_SQRTPI", "dd", func(p uint) *Float { return twoOverSqrtPi(p) }},
	{"LN_SQRT_2PI", "dd", func(p uint) *Float {
		return quo(p, Log(p, mul(p, newI(p, 2), Pi(p))), newI(p, 2))
	}},
	{"SQRT2", "dd", func(p uint) *Float { return sqrt(p, newI(p, 2)) }},
	{"INV_SQRT2", "dd", func(p uint) *Float { return sqrt(p, frac(1, 2)(p)) }},
	{"TWO_THIRDS", "dd", frac(2, 3)},
	{"TWO_FIFTHS", "dd", frac(2, 5)},

	{"LN2F_CW", "fsplit:15", Ln2},
	{"LN2F", "ff", Ln2},
	{"LOG2EF", "ff", func(p uint) *Float { return quo(p, newI(p, 1), Ln2(p)) }},
	{"LOG10_2F_CW", "fsplit:15", func(p uint) *Float { return quo(p, Ln2(p), Log(p, newI(p, 10))) }},
	{"LOG10_2F", "ff", func(p uint) *Float { return quo(p, Ln2(p), Log(p, newI(p, 10))) }},
	{"INV_LN10F", "ff", func(p uint) *Float { return quo(p, newI(p, 1), Log(p, newI(p, 10))) }},
	{"PIF", "ff", cpi},
	{"PIO2F", "ff", func(p uint) *Float { return quo(p, Pi(p), newI(p, 2)) }},
	{"PIO2F_CW", "fsplit:24", func(p uint) *Float { return quo(p, Pi(p), newI(p, 2)) }},
}

// roundBits rounds x to n significant bits.
func roundBits(x *Float, n uint) *Float {
	return new(Float).SetPrec(n).SetMode(big.ToNearestEven).Set(x)
}

func dstr(x *Float) string {
	v, _ := x.Float64()
	return hexLit(v, false)
}

func fstr(x *Float) string {
	v, _ := x.Float32()
	return hexLit(float64(v), true) + "f"
}

// constDefines renders every constant as #defines named CUGEN_<NAME>[_HI|_LO|_1|_2|_3].
func constDefines(b *bytes.Buffer) {
	b.WriteString("\n// Constants, rounded from 300-bit values.\n")
	for _, c := range Consts {
		x := c.F(constPrec)
		var n uint
		switch {
		case c.Form == "d":
			fmt.Fprintf(b, "#define CUGEN_%s %s\n", c.Name, dstr(x))
		case c.Form == "dd" || c.Form == "ff":
			p, str := uint(53), dstr
			if c.Form == "ff" {
				p, str = 24, fstr
			}
			hi := roundBits(x, p)
			lo := roundBits(sub(constPrec, x, hi), p)
			fmt.Fprintf(b, "#define CUGEN_%s_HI %s\n#define CUGEN_%s_LO %s\n", c.Name, str(hi), c.Name, str(lo))
		case scan(c.Form, "split:%d", &n) || scan(c.Form, "fsplit:%d", &n):
			p, str := uint(53), dstr
			if c.Form[0] == 'f' {
				p, str = 24, fstr
			}
			rest := x
			for i, bits := range []uint{n, p, p} {
				part := roundBits(rest, bits)
				rest = sub(constPrec, rest, part)
				fmt.Fprintf(b, "#define CUGEN_%s_%d %s\n", c.Name, i+1, str(part))
			}
		default:
			panic("mathgen: bad constant form " + c.Form)
		}
	}
}

func scan(s, format string, n *uint) bool {
	_, err := fmt.Sscanf(s, format, n)
	return err == nil
}

// TwoOverPiWords is 2/π after the binary point as n 64-bit words, most
// significant first, preceded by one zero word (so that a window may start
// up to 64 bits before the point).
func TwoOverPiWords(n int) []uint64 {
	p := uint(64*n + 64)
	x := quo(p, newI(p, 2), Pi(p))
	w := make([]uint64, n+1)
	two64 := new(Float).SetPrec(p).SetMantExp(newI(p, 1), 64)
	for i := 1; i <= n; i++ {
		x.Mul(x, two64)
		iv, _ := x.Int(nil)
		w[i] = iv.Uint64()
		x.Sub(x, new(Float).SetPrec(p).SetInt(iv))
	}
	return w
}

// twoOverPiFunc renders the words as a switch: NVPTX does not turn it
// into a lookup table, so the library defines no global that cugen would
// wrap.
func twoOverPiFunc(b *bytes.Buffer) {
	w := TwoOverPiWords(20)
	b.WriteString("\n// 2/π in 64-bit words after one zero word, for Payne–Hanek reduction.\n")
	b.WriteString("static __device__ __inline__ unsigned long long __cugen_2opi(int i) {\n  switch (i) {\n")
	for i, v := range w {
		fmt.Fprintf(b, "  case %d: return 0x%016xULL;\n", i, v)
	}
	b.WriteString("  default: return 0;\n  }\n}\n")
}
