package exec

import "unsafe"

//go:generate go run ../opgen -o ops_gen.go

// opcode is a bytecode operation. Hand-written ops (control flow, memory,
// warp and barrier operations) come first; the generated arithmetic and
// comparison forms follow from opALU on.
type opcode uint16

const (
	opNop opcode = iota
	opBra
	opExit
	opRet
	opCall    // aux: callee entry pc; aux2: callee index; imm: frame offset of the callee's frame
	opBuiltin // aux: builtin id; imm: frame offset of its parameter block
	opTrap
	opMov      // d = a
	opMovPred  // pred d = pred a (e: 1 to negate)
	opPredAnd  // pred d = a & b (fl bit 0/1 negate a/b)
	opPredOr   //
	opPredXor  //
	opPredSet  // pred d = imm != 0
	opSelp     // d = pred c ? a : b
	opPredToR  // d = pred a ? 1 : 0 (widths handled by the value)
	opSetp     // generated compare; see setpOp
	opCvtII    // integer → integer: fl = cvtSpec
	opPack     // d = pack(vec[aux: aux+e]) of fl-bit elements
	opUnpack   // vec[aux: aux+e] = fields of a
	opLdParam  // kernel parameter: vec regs at aux (e regs) of fl size from param buffer at imm
	opLd       // memory load: aux2 = space; fl = size|flags; vec regs at aux (e regs)
	opSt       // memory store
	opAtom     // atomic; aux2 = space; fl = atomKind; c = size
	opSpecial  // d = dynamic special register (aux: which)
	opBar      // barrier; a = id slot, b = count slot (fl&barCount), fl flags
	opShfl     // fl = mode | shflUniform; d, a (value), b (lane), c (clamp), aux: pred dest
	opVote     // fl = mode; d (reg or pred), a pred, neg in e, b (membermask)
	opMatch    // fl = any/all|b64; d, a, aux: pred dest
	opRedux    // fl = kind; d, a, b (membermask)
	opActMask  // d = group mask
	opElect    // d (reg), aux: pred dest
	opAddCC    // carry ops: fl = kind|width
	opIsspacep // pred d = a in space aux2
	opCvtaTo   // d = a - window for space aux2 (checked)
	opLdG32    // ld.global of one 32-bit value (the common case, specialised)
	opLdS32    // ld.shared of one 32-bit value
	opStG32    // st.global of one 32-bit value
	opStS32    // st.shared of one 32-bit value
	opLdLdFma  // superinstruction: opLdS32, opLdS32, fma.rn.f32 at pc, pc+1, pc+2
	opLdChain  // superinstruction: opLdLdFma triples chained through the sum (chain.go), aux = program.chains index
	opCpAsync  // cp.async: shared [a+imm] ← global [b+c], fl bytes, d: source size
	opTensor   // tensor-core instruction: fl = kind (tensor_decode.go), aux = its form
	opCluster  // mapa, getctarank, barrier.cluster (cluster.go): fl = clMapa…
	opMbar     // mbarrier.* (mbarrier.go): fl = mbInit…|flags, aux2 = space, [a+imm], b operand, d result
	opBulk     // cp.async.bulk*, cp.reduce.async.bulk* (bulk.go): aux = bulk form index
	opCallInd  // call through a register (call.go): a = target, aux2 = prototype index, imm as opCall
	opBrx      // brx.idx (brx.go): a = index, targets p.brx[aux : aux+e]
	opTex      // tex, tld4, txq, suld, sust, sured, suq (texinstr.go): aux indexes program.texs
	opLdGAdd   // ld.global [a+imm] with its address add folded in (fuse_mem.go), aux = program.foldOps index
	opStGAdd   // st.global.b32 [a+imm] likewise
	opAtomSAdd // atom.shared.add.u32 [a+imm] with its 32-bit address add folded in likewise
	opStack    // alloca, stacksave, stackrestore (alloca.go): fl = skAlloca…, e = width, imm = the function's frame size, aux = alignment
	opLdGStS   // superinstruction: opLdG32 at pc, opStS32 of its value at pc+1 (fuse_copy.go), aux = 1: write the loaded register

	opALU opcode = 256
	opCmp opcode = 2048
)

const fullMask = ^uint32(0)

// inst is one decoded instruction. Register operands are slot*32 (the
// offset of the slot's lanes in the register file); predicate operands are
// predicate indices. Unused register operands point at the junk slot 0.
type inst struct {
	op      opcode
	fl      uint16
	gp      int32  // guard predicate index, or -1
	gx      uint32 // guard xor: fullMask for @!p
	d       uint32
	a, b, c uint32
	e       uint32
	imm     int64
	aux     int32
	aux2    int32
}

// genOp is a generated opcode and the PTX types of its sources.
type genOp struct {
	op   opcode
	srcs string
}

// lanes is the 32 lane values of the register at offset o.
func lanes(r []uint64, o uint32) *[32]uint64 { return (*[32]uint64)(r[o : o+32]) }

// quads views a register's lanes four by four (the generated full-warp
// loops).
func quads(v *[32]uint64) *[8][4]uint64 { return (*[8][4]uint64)(unsafe.Pointer(v)) }

// splat stores v in every lane of d, four lanes a step: the compiler's
// loop over single lanes took several times as long.
func splat(d *[32]uint64, v uint64) {
	for i, q := 0, quads(d); i < len(q); i++ {
		q[i] = [4]uint64{v, v, v, v}
	}
}

// octs views a warp register as four 8-lane groups (lanes 8k..8k+7 in
// row k), for the generated compares' per-group masks.
func octs(v *[32]uint64) *[4][8]uint64 { return (*[4][8]uint64)(unsafe.Pointer(v)) }

func satS32(v int64) uint64 {
	switch {
	case v > 1<<31-1:
		v = 1<<31 - 1
	case v < -1<<31:
		v = -1 << 31
	}
	return uint64(uint32(v))
}

// Memory spaces of ld/st/atom.
const (
	spGlobal = iota
	spShared
	spLocal
	spGeneric
	spConst
	spParam   // the kernel's parameter buffer (read-only)
	spCluster // .shared::cluster: any CTA of the cluster (cluster.go)
)

var spaceNames = [...]string{"global", "shared", "local", "generic", "const", "param", "shared"}

// Flags of the hand-written ops.
const (
	// opBar
	barArrive  = 1
	barCount   = 2
	barRedPopc = 4
	barRedAnd  = 8
	barRedOr   = 16
	barRedNeg  = 32

	// opSetp (generated compare ops in the main loop)
	setpAnd  = 1
	setpOr   = 2
	setpXor  = 3
	setpNegC = 4
	setpQ    = 8

	// opLd / opSt: low byte is the element size
	memSext   = 1 << 8
	memAtomic = 1 << 9 // .volatile/.relaxed/.acquire/.release: atomic access
)

// Shuffle and vote modes.
const (
	shflUp = iota
	shflDown
	shflBfly
	shflIdx
	// shflUniform (a bit beside the mode) says that shfl's lane and clamp
	// operands are immediates, the same in every lane.
	shflUniform = 1 << 8
)

const (
	voteAll = iota
	voteAny
	voteUni
	voteBallot
)

// Redux kinds.
const (
	rdAdd = iota
	rdMin
	rdMax
	rdAnd
	rdOr
	rdXor
)

// Carry op kinds (opAddCC's fl low nibble; bit 4: 64-bit; bit 5: writes CC).
const (
	ccAdd = iota
	ccSub
	ccMadLo
	ccMadHi
)

const (
	ccIn  = 1 << 4 // consumes the carry (addc, subc, madc)
	ccOut = 1 << 5 // sets the carry (.cc)
	cc64  = 1 << 6
)

// f32Of is the float32 in the low half of a register's lane, read as
// float32 from memory (the generated float ops): the executor, like
// internal/devmem, runs on little-endian hosts.
func f32Of(p *uint64) float32 { return *(*float32)(unsafe.Pointer(p)) }
