// Tensor-core element types and fragment layouts: the types of mma, wmma
// and wgmma operands and how their elements decode, which lane holds which
// element of an mma or wmma operand, and how elements are packed into
// registers. The layouts of mma.sync are the PTX ISA's; those of wmma (which
// the ISA leaves to the target) are the H100's, as recorded on the GPU
// (testdata/mma). The arithmetic is in tensor_sum.go.

package exec

import (
	"math"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// mmaShape is an m×n×k tensor-core shape.
type mmaShape struct{ m, n, k int }

var mmaShapes = map[string]mmaShape{
	"m8n8k4": {8, 8, 4}, "m8n8k16": {8, 8, 16}, "m8n8k32": {8, 8, 32}, "m8n8k128": {8, 8, 128},
	"m16n8k4": {16, 8, 4}, "m16n8k8": {16, 8, 8}, "m16n8k16": {16, 8, 16}, "m16n8k32": {16, 8, 32},
	"m16n8k64": {16, 8, 64}, "m16n8k128": {16, 8, 128}, "m16n8k256": {16, 8, 256},
	"m16n16k16": {16, 16, 16}, "m32n8k16": {32, 8, 16}, "m8n32k16": {8, 32, 16}, "m16n16k8": {16, 16, 8},
}

// Operands of an MMA.
const (
	opA = iota
	opB
	opC // C and D share their layout
)

// dims is the rows and columns of an operand matrix.
func (s mmaShape) dims(op int) (rows, cols int) {
	switch op {
	case opA:
		return s.m, s.k
	case opB:
		return s.k, s.n
	}
	return s.m, s.n
}

// quadPair reports whether the shape/type is mma.m8n8k4 with .f16
// multiplicands: four independent 8×8×4 products, one per quad pair
// (lanes 0-3 with 16-19, 4-7 with 20-23, ...).
func quadPair(s mmaShape, a mmaType) bool { return s == mmaShape{8, 8, 4} && a == mtF16 }

// mmaFragPos is the PTX ISA's fragment layout for mma.sync: element i
// (counted low to high through the fragment's registers) of operand op held
// by lane is element (row, col) of matrix q (q > 0 only for the quad-pair
// m8n8k4). rowMajor is the operand's .row/.col (only m8n8k4 .f16 has a
// choice; every other shape is .row.col).
func mmaFragPos(s mmaShape, op int, t mmaType, rowMajor bool, lane, i int) (q, row, col int) {
	if quadPair(s, t) || op == opC && s == (mmaShape{8, 8, 4}) && t != mtF64 {
		return quadPairPos(op, t, rowMajor, lane, i)
	}
	g, tig := lane>>2, lane&3
	if op == opC {
		// Accumulators: two consecutive columns per lane, rows g and g+8.
		return 0, g + 8*(i>>1), tig*2 + i&1
	}
	epr := t.perReg()
	r, j := i/epr, i%epr
	if op == opA {
		// Register r: rows g (even r) or g+8 (odd r, when m = 16); the
		// lanes of a group cover 4*epr consecutive columns, and every other
		// register moves on to the next 4*epr columns.
		if s.m == 8 {
			return 0, g, tig*epr + j
		}
		return 0, g + 8*(r&1), tig*epr + j + (r>>1)*4*epr
	}
	return 0, tig*epr + j + r*4*epr, g
}

// quadPairPos is the layout of mma.m8n8k4 with .f16 multiplicands.
func quadPairPos(op int, t mmaType, rowMajor bool, lane, i int) (q, row, col int) {
	q = lane >> 2 & 3
	hi := 0
	if lane >= 16 {
		hi = 4
	}
	t4 := lane & 3
	switch op {
	case opA:
		if rowMajor {
			return q, t4 + hi, i
		}
		return q, i + hi, t4
	case opB:
		if rowMajor {
			return q, t4, i + hi
		}
		return q, i, t4 + hi
	}
	if t == mtF16 {
		return q, t4 + hi, i
	}
	return q, lane&1 + i&2 + hi, i&4 + lane&2 + i&1
}

// wmmaTile is the mma shape one wmma operation is built from for
// multiplicand type t: wmma.load and wmma.mma lay their fragments out as
// consecutive mma tiles of this shape (H100, measured).
func wmmaTile(t mmaType) mmaShape {
	switch t {
	case mtTF32:
		return mmaShape{16, 8, 8}
	case mtF64:
		return mmaShape{8, 8, 4}
	case mtS4, mtU4:
		return mmaShape{8, 8, 32}
	case mtB1:
		return mmaShape{8, 8, 128}
	}
	return mmaShape{16, 8, 16}
}

// wmmaFragPos is the H100's wmma fragment layout: element i of lane's
// fragment of operand op (ab: the multiplicand type, which picks the tile;
// t: the operand's own type) is element (row, col). An m16n16 or m32n8
// operand is two mma tiles side by side (along n for B and m16n16's C,
// along m for A and m32n8's C), register after register; an m8n32k16
// operand is the transposed m32n8k16 one; f16 multiplicand fragments hold
// eight registers whatever the shape, repeating the tiles' registers.
func wmmaFragPos(s mmaShape, op int, ab, t mmaType, lane, i int) (row, col int) {
	if s == (mmaShape{8, 32, 16}) {
		top := []int{opB, opA, opC}[op]
		r, c := wmmaFragPos(mmaShape{32, 8, 16}, top, ab, t, lane, i)
		return c, r
	}
	tile := wmmaTile(ab)
	if tile.m == 8 {
		_, r, c := mmaFragPos(s, op, t, true, lane, i)
		return r, c
	}
	tr, tc := tile.dims(op)
	per := tr * tc / 32
	rows, cols := s.dims(op)
	i %= per * (rows / tr) * (cols / tc)
	ti, ie := i/per, i%per
	_, r, c := mmaFragPos(tile, op, t, true, lane, ie)
	if rows > tr {
		r += ti * tr
	} else {
		c += ti * tc
	}
	return r, c
}

// wmmaRegs is the number of registers of a wmma fragment.
func wmmaRegs(s mmaShape, op int, t mmaType) int {
	if t == mtF16 && op != opC {
		return 8 // a 16×16×16 f16 fragment's worth, whatever the shape
	}
	r, c := s.dims(op)
	return r * c / 32 / t.perReg()
}

// mmaType is the element type of a tensor-core operand.
type mmaType uint8

const (
	mtNone mmaType = iota
	mtF16
	mtBF16
	mtTF32
	mtF32
	mtF64
	mtE4M3
	mtE5M2
	mtS8
	mtU8
	mtS4
	mtU4
	mtB1
	mtS32
)

var mmaTypeNames = [...]string{"", "f16", "bf16", "tf32", "f32", "f64", "e4m3", "e5m2", "s8", "u8", "s4", "u4", "b1", "s32"}

func (t mmaType) String() string { return mmaTypeNames[t] }

func lookupMMAType(s string) mmaType {
	for i, n := range mmaTypeNames {
		if i > 0 && n == s {
			return mmaType(i)
		}
	}
	return mtNone
}

// bits is the element's width in bits.
func (t mmaType) bits() int {
	switch t {
	case mtF16, mtBF16:
		return 16
	case mtF64:
		return 64
	case mtE4M3, mtE5M2, mtS8, mtU8:
		return 8
	case mtS4, mtU4:
		return 4
	case mtB1:
		return 1
	}
	return 32
}

func (t mmaType) isFloat() bool { return t >= mtF16 && t <= mtE5M2 }

// perReg is the number of elements one register holds (f64: one per .f64
// register; everything else is packed into .b32 registers).
func (t mmaType) perReg() int {
	if t == mtF64 {
		return 1
	}
	return 32 / t.bits()
}

// elemBits extracts element j of a register.
func (t mmaType) elemBits(reg uint64, j int) uint64 {
	b := t.bits()
	if b == 64 {
		return reg
	}
	return reg >> (uint(j) * uint(b)) & (1<<uint(b) - 1)
}

// toFloat decodes a floating-point element exactly. tf32 elements are the
// f32 bits with the low 13 bits ignored, as the tensor cores read them.
func (t mmaType) toFloat(b uint64) float64 {
	switch t {
	case mtF16:
		return gpumath.F16.Float(b)
	case mtBF16:
		return gpumath.BF16.Float(b)
	case mtTF32:
		return float64(math.Float32frombits(uint32(b) &^ 0x1fff))
	case mtF32:
		return float64(math.Float32frombits(uint32(b)))
	case mtF64:
		return math.Float64frombits(b)
	case mtE4M3:
		return e4m3Float(b)
	case mtE5M2:
		return gpumath.F16.Float(b << 8) // e5m2 is the top byte of an f16
	}
	return 0
}

// emin is the exponent the tensor cores give the type's subnormals (fp8
// is widened to f16 first, where its subnormals are normal).
func (t mmaType) emin() int {
	switch t {
	case mtF16, mtE4M3, mtE5M2:
		return -14
	case mtF64:
		return -1022
	}
	return -126
}

// toInt decodes an integer element (b1 as 0 or 1).
func (t mmaType) toInt(b uint64) int64 {
	switch t {
	case mtS8:
		return int64(int8(b))
	case mtS4:
		return gpumath.Sext(b, 4)
	case mtS32:
		return int64(int32(b))
	}
	return int64(b)
}

// e4m3Float decodes an OCP FP8 E4M3 value: bias 7, no infinities, NaN is
// S.1111.111.
func e4m3Float(b uint64) float64 {
	s := 1.0
	if b&0x80 != 0 {
		s = -1
	}
	e := int(b >> 3 & 15)
	m := float64(b & 7)
	switch {
	case e == 15 && b&7 == 7:
		return math.NaN()
	case e == 0:
		return s * math.Ldexp(m, -9)
	}
	return s * math.Ldexp(8+m, e-10)
}
