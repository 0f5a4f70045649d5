// Package contractgen is the corpus behind rt/soft's model of ptxas's FMA
// contraction: small kernels of every shape in which a multiply and an add
// without rounding modifiers can meet (a*b ± c*d in every order and sign,
// (1-b)*x, chains and trees of products, products reaching an add across
// blocks, predicates and loops), in hand-written PTX, in inline PTX inside
// CUDA C, and as plain CUDA C for what NVVM emits. It also provides the
// inputs every run uses, the format of the results recorded on the GPU, and
// symbolic evaluators that reduce a kernel's PTX or its SASS to the same
// canonical expression trees, so that a fusion decision of ptxas can be
// compared with rt/soft's without running anything.
//
// cmd/contractgen writes the sources and the GPU script, records results on
// a backend, and summarises SASS dumps; rt/soft's tests read the summaries
// and the recordings from rt/soft/testdata/contract.
package contractgen

import (
	"fmt"
	"strings"
)

// Type is a shape's floating-point variant.
type Type string

const (
	F32    Type = "f32"
	F64    Type = "f64"
	F32FTZ Type = "ftz" // f32 with .ftz on every mul, add, sub and fma
)

// Size is the element width in bytes.
func (t Type) Size() int {
	if t == F64 {
		return 8
	}
	return 4
}

// PTXType is the instruction type suffix.
func (t Type) PTXType() string {
	if t == F64 {
		return "f64"
	}
	return "f32"
}

// Shape is one kernel body in a small PTX-like language:
//
//	mul p, a, b        FP ops get the shape's type (and .ftz for F32FTZ)
//	add.rn r, p, 1.0   explicit modifiers are kept; constants are decimal
//	@q add r, p, c     guards; predicates are setp destinations
//	setp.gt q, e, 0.0  comparisons (FP, or integer on k-registers)
//	mov k, 0           names starting with k are 32-bit integers
//	L: / bra L         labels and branches (bra.uni is not used)
//	bar                bar.sync 0
//	out 1, r           store r as the thread's output 1
//
// Inputs are a..i (the thread's in[0..8]); any other name is a temporary.
type Shape struct {
	Name   string
	Family string
	Types  []Type // the variants the shape is built in
	Body   string // lines separated by ';' or newlines
	// Asm marks straight-line shapes that are also emitted as inline PTX in
	// CUDA C (branches and labels cannot be, since nvcc names no labels).
	Asm bool
}

var all = []Type{F32, F64, F32FTZ}
var f32only = []Type{F32, F32FTZ}
var plain32 = []Type{F32}

// Shapes is the hand-written corpus. Inputs pair up for products: (a,b),
// (c,d), (e,f), (g,h); the inputs make the products of a pair cancel in
// some threads (see Inputs).
var Shapes = []Shape{
	// Two products meeting in one add or sub.
	{Name: "add_pq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; add r, p, q; out 0, r"},
	{Name: "add_qp", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; add r, q, p; out 0, r"},
	{Name: "sub_pq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; out 0, r"},
	{Name: "sub_qp", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, q, p; out 0, r"},
	{Name: "rev_add_pq", Family: "pair", Types: all, Asm: true, Body: "mul q, c, d; mul p, a, b; add r, p, q; out 0, r"},
	{Name: "rev_add_qp", Family: "pair", Types: all, Asm: true, Body: "mul q, c, d; mul p, a, b; add r, q, p; out 0, r"},
	{Name: "rev_sub_pq", Family: "pair", Types: all, Asm: true, Body: "mul q, c, d; mul p, a, b; sub r, p, q; out 0, r"},
	{Name: "rev_sub_qp", Family: "pair", Types: all, Asm: true, Body: "mul q, c, d; mul p, a, b; sub r, q, p; out 0, r"},
	// Register numbers against definition order (%N names a register explicitly).
	{Name: "regswap_sub_pq", Family: "pair", Types: all, Body: "mul %30, a, b; mul %20, c, d; sub %25, %30, %20; out 0, %25"},
	{Name: "regswap_sub_qp", Family: "pair", Types: all, Body: "mul %30, a, b; mul %20, c, d; sub %25, %20, %30; out 0, %25"},
	{Name: "swapops_sub_pq", Family: "pair", Types: all, Asm: true, Body: "mul p, b, a; mul q, d, c; sub r, p, q; out 0, r"},
	{Name: "neg_p_add", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; neg n, p; add r, n, q; out 0, r"},
	{Name: "neg_q_add", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; neg n, q; add r, p, n; out 0, r"},
	{Name: "neg_p_sub", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; neg n, p; sub r, n, q; out 0, r"},
	{Name: "negin_sub_pq", Family: "pair", Types: all, Asm: true, Body: "neg na, a; mul p, na, b; mul q, c, d; sub r, p, q; out 0, r"},
	{Name: "negres_sub_pq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; neg s, r; out 0, s"},
	{Name: "negres_add_pq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; add r, p, q; neg s, r; out 0, s"},
	{Name: "sub_pp", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; sub r, p, p; out 0, r"},
	{Name: "add_pp", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; add r, p, p; out 0, r"},
	{Name: "sub_pq_pstored", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; out 0, r; out 1, p"},
	{Name: "sub_pq_qstored", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; out 0, r; out 1, q"},
	{Name: "sub_pq_bothstored", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; out 0, r; out 1, p; out 2, q"},
	{Name: "sub_pq_padd", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; add s, p, e; out 0, r; out 1, s"},
	{Name: "sub_pq_qadd", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; add s, q, e; out 0, r; out 1, s"},
	{Name: "sub_pq_pmul", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; mul s, p, e; out 0, r; out 1, s"},
	{Name: "sub_pq_far", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul x, e, f; add y, x, e; mul q, c, d; sub r, p, q; out 0, r; out 1, y"},
	{Name: "sub_pq_movp", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mov t, p; mul q, c, d; sub r, t, q; out 0, r"},
	{Name: "sub_pq_movq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mov t, q; sub r, p, t; out 0, r"},
	{Name: "sub_pq_imm", Family: "pair", Types: all, Asm: true, Body: "mul p, a, 0.1; mul q, c, d; sub r, p, q; out 0, r"},
	{Name: "sub_qimm", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, 0.1; sub r, p, q; out 0, r"},
	{Name: "sub_shared_src", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, a, c; sub r, p, q; out 0, r"},
	{Name: "sub_squares", Family: "pair", Types: all, Asm: true, Body: "mul p, a, a; mul q, b, b; sub r, p, q; out 0, r"},
	{Name: "sub_pq_rnp", Family: "pair", Types: all, Asm: true, Body: "mul.rn p, a, b; mul q, c, d; sub r, p, q; out 0, r"},
	{Name: "sub_pq_rnq", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul.rn q, c, d; sub r, p, q; out 0, r"},
	{Name: "mulmul_add", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, p, c; add r, q, d; out 0, r"},
	{Name: "sub_pq_twice", Family: "pair", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; sub r, p, q; sub s, q, p; out 0, r; out 1, s"},

	// One product and a plain operand.
	{Name: "add_pc", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add r, p, c; out 0, r"},
	{Name: "add_cp", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add r, c, p; out 0, r"},
	{Name: "sub_pc", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub r, p, c; out 0, r"},
	{Name: "sub_cp", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub r, c, p; out 0, r"},
	{Name: "neg_add_c", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; neg n, p; add r, n, c; out 0, r"},
	{Name: "neg_sub_c", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; neg n, p; sub r, n, c; out 0, r"},
	{Name: "sub_c_neg", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; neg n, p; sub r, c, n; out 0, r"},
	{Name: "add_p1", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add r, p, 1.0; out 0, r"},
	{Name: "sub_1p", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub r, 1.0, p; out 0, r"},
	{Name: "sub_p1", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub r, p, 1.0; out 0, r"},
	{Name: "mulimm_add", Family: "one", Types: all, Asm: true, Body: "mul p, a, 3.0; add r, p, b; out 0, r"},
	{Name: "mulimm_sub", Family: "one", Types: all, Asm: true, Body: "mul p, a, 0.1; sub r, b, p; out 0, r"},
	{Name: "rn_mul", Family: "one", Types: all, Asm: true, Body: "mul.rn p, a, b; add r, p, c; out 0, r"},
	{Name: "rn_add", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add.rn r, p, c; out 0, r"},
	{Name: "rn_sub", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub.rn r, c, p; out 0, r"},
	{Name: "rz_add", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add.rz r, p, c; out 0, r"},
	{Name: "sat_add", Family: "one", Types: f32only, Asm: true, Body: "mul p, a, b; add.sat r, p, c; out 0, r"},
	{Name: "sat_sub", Family: "one", Types: f32only, Asm: true, Body: "mul p, a, b; sub.sat r, c, p; out 0, r"},
	{Name: "sat_mul", Family: "one", Types: f32only, Asm: true, Body: "mul.sat p, a, b; add r, p, c; out 0, r"},
	{Name: "sat_pq", Family: "one", Types: f32only, Asm: true, Body: "mul p, a, b; mul q, c, d; sub.sat r, p, q; out 0, r"},
	{Name: "ftz_mul_only", Family: "one", Types: plain32, Asm: true, Body: "mul.ftz p, a, b; add r, p, c; out 0, r"},
	{Name: "ftz_add_only", Family: "one", Types: plain32, Asm: true, Body: "mul p, a, b; add.ftz r, p, c; out 0, r"},
	{Name: "ftz_pq_mixed", Family: "one", Types: plain32, Asm: true, Body: "mul.ftz p, a, b; mul q, c, d; sub r, p, q; out 0, r"},
	{Name: "abs_add", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; abs t, p; add r, t, c; out 0, r"},
	{Name: "fma_addend", Family: "one", Types: all, Asm: true, Body: "mul p, c, d; fma r, a, b, p; out 0, r"},
	{Name: "fma_factor", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; fma r, p, c, d; out 0, r"},
	{Name: "two_subs", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; sub r, c, p; sub s, d, p; out 0, r; out 1, s"},
	{Name: "two_adds", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add r, p, c; add s, p, d; out 0, r; out 1, s"},
	{Name: "add_and_mul", Family: "one", Types: all, Asm: true, Body: "mul p, a, b; add r, p, c; mul s, p, d; out 0, r; out 1, s"},
	{Name: "add_self_sq", Family: "one", Types: all, Asm: true, Body: "mul p, a, a; add r, p, a; out 0, r"},

	// (k ± b)·x, which ptxas may rewrite as fma(∓b, x, k·x).
	{Name: "om_bx", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, t, a; out 0, r"},
	{Name: "om_xb", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, a, t; out 0, r"},
	{Name: "op_b1", Family: "oneminus", Types: all, Asm: true, Body: "add t, b, 1.0; mul r, t, a; out 0, r"},
	{Name: "op_1b", Family: "oneminus", Types: all, Asm: true, Body: "add t, 1.0, b; mul r, t, a; out 0, r"},
	{Name: "mo_b1", Family: "oneminus", Types: all, Asm: true, Body: "sub t, b, 1.0; mul r, t, a; out 0, r"},
	{Name: "addm1", Family: "oneminus", Types: all, Asm: true, Body: "add t, b, -1.0; mul r, t, a; out 0, r"},
	{Name: "m1_minus_b", Family: "oneminus", Types: all, Asm: true, Body: "sub t, -1.0, b; mul r, t, a; out 0, r"},
	{Name: "two_minus", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 2.0, b; mul r, t, a; out 0, r"},
	{Name: "half_minus", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 0.5, b; mul r, t, a; out 0, r"},
	{Name: "three_minus", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 3.0, b; mul r, t, a; out 0, r"},
	{Name: "c_minus", Family: "oneminus", Types: all, Asm: true, Body: "sub t, c, b; mul r, t, a; out 0, r"},
	{Name: "c_plus", Family: "oneminus", Types: all, Asm: true, Body: "add t, c, b; mul r, t, a; out 0, r"},
	{Name: "om_twice", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, t, a; mul s, t, c; out 0, r; out 1, s"},
	{Name: "om_stored", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, t, a; out 0, r; out 1, t"},
	{Name: "om_sq", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, t, t; out 0, r"},
	{Name: "om_add", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul u, t, a; add r, u, c; out 0, r"},
	{Name: "om_adam", Family: "oneminus", Types: all, Asm: true, Body: "mul p, a, b; sub t, 1.0, a; mul u, t, c; add r, p, u; out 0, r"},
	{Name: "om_imm", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul r, t, 3.0; out 0, r"},
	{Name: "om_negb", Family: "oneminus", Types: all, Asm: true, Body: "neg nb, b; add t, nb, 1.0; mul r, t, a; out 0, r"},
	{Name: "om_rnsub", Family: "oneminus", Types: all, Asm: true, Body: "sub.rn t, 1.0, b; mul r, t, a; out 0, r"},
	{Name: "om_rnmul", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mul.rn r, t, a; out 0, r"},
	{Name: "om_mov", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; mov u, t; mul r, u, a; out 0, r"},
	{Name: "am1_a", Family: "oneminus", Types: all, Asm: true, Body: "sub t, a, 1.0; mul r, t, a; out 0, r"},
	{Name: "om_neg", Family: "oneminus", Types: all, Asm: true, Body: "sub t, 1.0, b; neg n, t; mul r, n, a; out 0, r"},
	{Name: "om_sat", Family: "oneminus", Types: f32only, Asm: true, Body: "sub t, 1.0, b; mul.sat r, t, a; out 0, r"},
	{Name: "om_satsub", Family: "oneminus", Types: f32only, Asm: true, Body: "sub.sat t, 1.0, b; mul r, t, a; out 0, r"},

	// Chains and trees of sums of products.
	{Name: "sum3", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; add u, p, q; add r, u, s; out 0, r"},
	{Name: "sum3_right", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; add u, q, s; add r, p, u; out 0, r"},
	{Name: "diff3", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; sub u, p, q; sub r, u, s; out 0, r"},
	{Name: "diff3_right", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; sub u, q, s; sub r, p, u; out 0, r"},
	{Name: "tree4", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; mul w, g, h; add u, p, q; add v, s, w; add r, u, v; out 0, r"},
	{Name: "tree4_sub", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; mul w, g, h; sub u, p, q; sub v, s, w; sub r, u, v; out 0, r"},
	{Name: "dot4", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; mul w, g, h; add u, p, q; add v, u, s; add r, v, w; out 0, r"},
	{Name: "dot4_interleaved", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; add u, p, q; mul s, e, f; add v, u, s; mul w, g, h; add r, v, w; out 0, r"},
	{Name: "sub_then_add", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; mul q, c, d; mul s, e, f; sub u, p, q; add r, u, s; out 0, r"},
	{Name: "horner", Family: "chain", Types: all, Asm: true, Body: "mul p, a, b; add u, p, c; mul v, u, b; add w, v, d; mul y, w, b; add r, y, e; out 0, r"},
	{Name: "complex_mul", Family: "chain", Types: all, Asm: true, Body: "mul p, a, c; mul q, b, d; sub re, p, q; mul s, a, d; mul w, b, c; add im, s, w; out 0, re; out 1, im"},
	{Name: "cross3", Family: "chain", Types: all, Asm: true, Body: "mul p1, b, f; mul q1, c, e; sub x, p1, q1; mul p2, c, d; mul q2, a, f; sub y, p2, q2; mul p3, a, e; mul q3, b, d; sub z, p3, q3; out 0, x; out 1, y; out 2, z"},
	{Name: "sum_nonprod", Family: "chain", Types: all, Asm: true, Body: "add u, a, b; mul p, c, d; add r, u, p; out 0, r"},
	{Name: "det2_sum", Family: "chain", Types: all, Asm: true, Body: "mul p, a, d; mul q, b, c; sub u, p, q; mul s, e, f; sub r, s, u; out 0, r"},

	// Products reaching an add across predicates, branches and loops.
	{Name: "guard_add", Family: "flow", Types: all, Body: "mul p, a, b; setp.gt q, e, 0.0; mov r, d; @q add r, p, c; out 0, r"},
	{Name: "guard_sub", Family: "flow", Types: all, Body: "mul p, a, b; setp.gt q, e, 0.0; mov r, d; @q sub r, c, p; out 0, r"},
	{Name: "guard_sub_pq", Family: "flow", Types: all, Body: "mul p, a, b; mul s, c, d; setp.gt q, e, 0.0; mov r, f; @q sub r, p, s; out 0, r"},
	{Name: "guard_mul", Family: "flow", Types: all, Body: "setp.gt q, e, 0.0; mov p, d; @q mul p, a, b; add r, p, c; out 0, r"},
	{Name: "guard_both", Family: "flow", Types: all, Body: "setp.gt q, e, 0.0; mov p, d; mov r, f; @q mul p, a, b; @q add r, p, c; out 0, r"},
	{Name: "guard_select", Family: "flow", Types: all, Body: "setp.gt q, e, 0.0; @q mul p, a, b; @!q mul p, c, d; add r, p, f; out 0, r"},
	{Name: "selp_prod", Family: "flow", Types: all, Body: "mul p, a, b; mul s, c, d; setp.gt q, e, 0.0; selp t, p, s, q; add r, t, f; out 0, r"},
	{Name: "br_add", Family: "flow", Types: all, Body: "mul p, a, b; setp.gt q, e, 0.0; mov r, d; @!q bra L1; add r, p, c; L1: out 0, r"},
	{Name: "br_sub_pq", Family: "flow", Types: all, Body: "mul p, a, b; setp.gt q, e, 0.0; mov r, f; @!q bra L1; mul s, c, d; sub r, p, s; L1: out 0, r"},
	{Name: "br_mul", Family: "flow", Types: all, Body: "setp.gt q, e, 0.0; mov p, d; @!q bra L1; mul p, a, b; L1: add r, p, c; out 0, r"},
	{Name: "br_diamond", Family: "flow", Types: all, Body: "setp.gt q, e, 0.0; @q bra L1; mul p, a, b; bra L2; L1: mul p, c, d; L2: add r, p, f; out 0, r"},
	{Name: "br_diamond_sub", Family: "flow", Types: all, Body: "mul s, e, f; setp.gt q, e, 0.0; @q bra L1; mul p, a, b; bra L2; L1: mul p, c, d; L2: sub r, p, s; out 0, r"},
	{Name: "label_between", Family: "flow", Types: all, Body: "mul p, a, b; mul s, c, d; L1: sub r, p, s; out 0, r"},
	{Name: "bar_between", Family: "flow", Types: all, Body: "mul p, a, b; mul s, c, d; bar; sub r, p, s; out 0, r"},
	{Name: "loop_acc", Family: "flow", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 3; @q bra L1; out 0, r"},
	{Name: "loop_sub", Family: "flow", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: sub r, r, p; add k, k, 1; setp.lt q, k, 3; @q bra L1; out 0, r"},
	{Name: "loop_mul_in", Family: "flow", Types: all, Body: "mov r, c; mov k, 0; L1: mul p, r, a; add r, p, b; add k, k, 1; setp.lt q, k, 3; @q bra L1; out 0, r"},
	{Name: "loop_pq", Family: "flow", Types: all, Body: "mov r, e; mov k, 0; L1: mul p, a, b; mul s, c, r; sub r, p, s; add k, k, 1; setp.lt q, k, 2; @q bra L1; out 0, r"},
	{Name: "br_join", Family: "flow", Types: all, Body: "mul p, a, b; setp.gt q, e, 0.0; mov w, d; @!q bra L1; mul x, f, f; add w, w, x; L1: add r, p, c; out 0, r; out 1, w"},
	{Name: "br_join_sub", Family: "flow", Types: all, Body: "mul p, a, b; mul s, c, d; setp.gt q, e, 0.0; mov w, f; @!q bra L1; add w, w, e; L1: sub r, s, p; out 0, r; out 1, w"},
	{Name: "bra_next", Family: "flow", Types: all, Body: "mul p, a, b; bra L1; L1: add r, p, c; out 0, r"},

	// Loops around an add of a product from before them: ptxas unrolls
	// some, which puts the two in one block.
	{Name: "loop2_acc", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 2; @q bra L1; out 0, r"},
	{Name: "loop4_acc", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 4; @q bra L1; out 0, r"},
	{Name: "loop8_acc", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 8; @q bra L1; out 0, r"},
	{Name: "loop16_acc", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 16; @q bra L1; out 0, r"},
	{Name: "loop64_acc", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, 64; @q bra L1; out 0, r"},
	{Name: "loopn_acc", Family: "loop", Types: all, Body: "shr kn, nthreads, 6; mul p, a, b; mov r, c; mov k, 0; L1: add r, r, p; add k, k, 1; setp.lt q, k, kn; @q bra L1; out 0, r"},
	{Name: "loop4_nounroll", Family: "loop", Types: all, Body: "mul p, a, b; mov r, c; mov k, 0; L1: nounroll; add r, r, p; add k, k, 1; setp.lt q, k, 4; @q bra L1; out 0, r"},
	{Name: "loop4_inside", Family: "loop", Types: all, Body: "mov r, c; mov k, 0; L1: mul p, a, b; sub r, r, p; add k, k, 1; setp.lt q, k, 4; @q bra L1; out 0, r"},

	// Calls between, or around, a product and its add.
	{Name: "call_between", Family: "call", Types: all, Body: "mul p, a, b; mul s, c, d; callid t, e; sub r, p, s; out 0, r; out 1, t"},
	{Name: "call_prod", Family: "call", Types: all, Body: "callmul t, a, b; add r, t, c; out 0, r"},
	{Name: "call_prod_sub", Family: "call", Types: all, Body: "callmul t, a, b; mul s, c, d; sub r, t, s; out 0, r"},
	{Name: "call_arg", Family: "call", Types: all, Body: "mul p, a, b; callid t, p; add r, t, c; out 0, r"},

	// A scalar kernel parameter, as an optimizer's beta: (1-beta)*x.
	{Name: "pm_om_bx", Family: "param", Types: all, Body: "sub t, 1.0, beta; mul r, t, a; out 0, r"},
	{Name: "pm_om_xb", Family: "param", Types: all, Body: "sub t, 1.0, beta; mul r, a, t; out 0, r"},
	{Name: "pm_adam_m", Family: "param", Types: all, Body: "mul p, beta, b; sub t, 1.0, beta; mul u, t, c; add r, p, u; out 0, r"},
	{Name: "pm_adam_v", Family: "param", Types: all, Body: "mul g, c, c; mul p, beta, b; sub t, 1.0, beta; mul u, t, g; add r, p, u; out 0, r"},
	{Name: "pm_om_add", Family: "param", Types: all, Body: "sub t, 1.0, beta; mul u, t, a; add r, u, b; out 0, r"},
	{Name: "pm_lerp", Family: "param", Types: all, Body: "sub t, b, a; mul u, t, beta; add r, a, u; out 0, r"},
	{Name: "pm_decay", Family: "param", Types: all, Body: "mul p, beta, a; sub r, a, p; out 0, r"},
	{Name: "pm_om_twice", Family: "param", Types: all, Body: "sub t, 1.0, beta; mul r, t, a; mul u, t, b; out 0, r; out 1, u"},
}

// Kernel is one shape in one type: its kernel name is Name_Type.
type Kernel struct {
	Shape
	Type Type
}

// Name is the kernel's entry name.
func (k Kernel) Name() string { return k.Shape.Name + "_" + string(k.Type) }

// Kernels lists every (shape, type) of the hand-written corpus, the random
// programs included.
func Kernels() []Kernel {
	var out []Kernel
	for _, s := range append(Shapes[:len(Shapes):len(Shapes)], RandomShapes()...) {
		for _, t := range s.Types {
			out = append(out, Kernel{s, t})
		}
	}
	return out
}

// stmt is one parsed line of a shape's body.
type stmt struct {
	label   string // "L1" for "L1:" lines
	guard   string
	neg     bool
	op      string
	mods    []string
	args    []string
	outSlot int
}

func parseBody(body string) ([]stmt, error) {
	var out []stmt
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == ';' || r == '\n' }) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if l, rest, ok := strings.Cut(line, ":"); ok && !strings.Contains(l, " ") {
			out = append(out, stmt{label: l})
			line = strings.TrimSpace(rest)
			if line == "" {
				continue
			}
		}
		var s stmt
		if strings.HasPrefix(line, "@") {
			g, rest, _ := strings.Cut(line[1:], " ")
			if strings.HasPrefix(g, "!") {
				s.neg, g = true, g[1:]
			}
			s.guard, line = g, strings.TrimSpace(rest)
		}
		opm, rest, _ := strings.Cut(line, " ")
		parts := strings.Split(opm, ".")
		s.op, s.mods = parts[0], parts[1:]
		for _, a := range strings.Split(rest, ",") {
			if a = strings.TrimSpace(a); a != "" {
				s.args = append(s.args, a)
			}
		}
		if s.op == "out" {
			if len(s.args) != 2 {
				return nil, fmt.Errorf("out needs a slot and a value: %q", line)
			}
			if _, err := fmt.Sscan(s.args[0], &s.outSlot); err != nil {
				return nil, fmt.Errorf("bad out slot in %q", line)
			}
			s.args = s.args[1:]
		}
		out = append(out, s)
	}
	return out, nil
}

// NumInputs is 1 + the highest input letter the body reads.
func (k Kernel) NumInputs() int {
	stmts, _ := parseBody(k.Body)
	n := 0
	for _, s := range stmts {
		for _, a := range s.args {
			if i := inputIndex(a); i+1 > n {
				n = i + 1
			}
		}
	}
	return n
}

// NumOutputs is 1 + the highest output slot.
func (k Kernel) NumOutputs() int {
	stmts, _ := parseBody(k.Body)
	n := 0
	for _, s := range stmts {
		if s.op == "out" && s.outSlot+1 > n {
			n = s.outSlot + 1
		}
	}
	return n
}

func inputIndex(name string) int {
	if len(name) == 1 && name[0] >= 'a' && name[0] <= 'i' {
		return int(name[0] - 'a')
	}
	return -1
}
