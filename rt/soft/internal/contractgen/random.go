package contractgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// NumRandom is how many random programs the corpus holds.
const NumRandom = 240

// RandomShapes are programs drawn at random from the same operations as
// Shapes (products, sums and differences of them, negations, copies, the
// odd rounding modifier or .sat, guarded adds and conditional regions),
// each product used once or several times. The rules rt/soft follows were
// read off Shapes; these check them on programs nobody chose.
func RandomShapes() []Shape {
	out := make([]Shape, NumRandom)
	for i := range out {
		out[i] = randomShape(i)
	}
	return out
}

func randomShape(i int) Shape {
	rng := rand.New(rand.NewPCG(uint64(i), 0x636f6e7472616374))
	t := []Type{F32, F64, F32FTZ}[i%3]
	inputs := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	consts := []string{"0.5", "3.0", "0.1", "-2.0", "1.0"}
	var lines, vals, prods []string
	vals = append(vals, inputs...)
	temps := 0
	fresh := func() string { temps++; return fmt.Sprintf("t%d", temps) }
	pickFrom := func(s []string) string { return s[rng.IntN(len(s))] }
	pick := func(prodBias int) string {
		if len(prods) > 0 && rng.IntN(100) < prodBias {
			return pickFrom(prods)
		}
		return pickFrom(vals)
	}
	guard := rng.IntN(4) == 0
	if guard {
		lines = append(lines, "setp.gt q, h, 0.0")
	}
	region := -1 // the op index where a conditional region starts
	if rng.IntN(4) == 0 {
		region = 2 + rng.IntN(3)
	}
	var regionVals, regionProds int // lengths of vals and prods at the region's start
	acc := ""
	nOps := 4 + rng.IntN(9)
	for j := 0; j < nOps; j++ {
		if j == region {
			acc = fresh()
			lines = append(lines, "setp.gt r, g, 0.0", fmt.Sprintf("mov %s, %s", acc, pickFrom(inputs)), "@!r bra L1")
			regionVals, regionProds = len(vals), len(prods)
		}
		inRegion := region >= 0 && j >= region && j < region+3
		d := fresh()
		switch r := rng.IntN(100); {
		case r < 35:
			x, y := pick(20), pick(20)
			if rng.IntN(8) == 0 {
				y = pickFrom(consts)
			}
			op := "mul"
			if rng.IntN(12) == 0 {
				op = "mul.rn"
			}
			lines = append(lines, fmt.Sprintf("%s %s, %s, %s", op, d, x, y))
			prods = append(prods, d)
		case r < 78:
			op := []string{"add", "sub"}[rng.IntN(2)]
			switch m := rng.IntN(20); {
			case m == 0:
				op += ".rn"
			case m == 1 && t != F64:
				op += ".sat"
			}
			x, y := pick(60), pick(60)
			if rng.IntN(10) == 0 {
				y = pickFrom(consts)
			}
			if rng.IntN(2) == 0 {
				x, y = y, x
			}
			if guard && rng.IntN(4) == 0 {
				lines = append(lines, fmt.Sprintf("mov %s, %s", d, pickFrom(inputs)), fmt.Sprintf("@q %s %s, %s, %s", op, d, x, y))
			} else {
				lines = append(lines, fmt.Sprintf("%s %s, %s, %s", op, d, x, y))
			}
		case r < 88:
			lines = append(lines, fmt.Sprintf("neg %s, %s", d, pick(70)))
		default:
			lines = append(lines, fmt.Sprintf("mov %s, %s", d, pick(70)))
		}
		vals = append(vals, d)
		if inRegion && (j == region+2 || j == nOps-1) {
			// the region ends by folding a value into acc, then its own
			// values go out of scope
			op := []string{"add", "sub"}[rng.IntN(2)]
			lines = append(lines, fmt.Sprintf("%s %s, %s, %s", op, acc, acc, pick(60)), "L1:")
			vals, prods = append(vals[:regionVals:regionVals], acc), prods[:regionProds:regionProds]
			region = -2 // done
		}
	}
	outs := []string{vals[len(vals)-1]}
	for k := 0; k < 2; k++ {
		if rng.IntN(2) == 0 && len(vals) > 9 {
			outs = append(outs, vals[8+rng.IntN(len(vals)-9)])
		}
	}
	if acc != "" && outs[0] != acc {
		outs = append(outs, acc)
	}
	for k, o := range outs {
		lines = append(lines, fmt.Sprintf("out %d, %s", k, o))
	}
	return Shape{Name: fmt.Sprintf("rand%03d", i), Family: "rand", Types: []Type{t}, Body: strings.Join(lines, "; ")}
}
