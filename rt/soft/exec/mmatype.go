// Tensor-core element types and fragment layouts: which lane holds which
// element of an mma or wmma operand, and how elements are packed into
// registers. The layouts of mma.sync are the PTX ISA's; those of wmma (which
// the ISA leaves to the target) are the H100's, as recorded on the GPU
// (testdata/mma). The arithmetic is in mma.go.

package exec

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
