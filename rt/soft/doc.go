// Package soft is a pure-Go rt.Driver that really executes kernels' PTX on
// the CPU, so that every test of a cugen-generated package runs unchanged on
// machines without a GPU.
//
// # Driver semantics
//
// The backend mirrors the CUDA driver API one call at a time: N emulated
// devices, primary (retained/released) and created contexts, a current
// context per OS thread (keyed by the thread id on Linux), streams as ordered
// queues of asynchronous copies, memsets and launches with the legacy NULL
// stream's implicit synchronisation, and events with elapsed times. Device
// memory lives in per-device address ranges that are never host pointers
// (device d's allocations start at 0x7000_0000_0000 + d<<40, managed
// variables at 0x6000_0000_0000); every allocation is found through a sorted
// span index, so an out-of-bounds or use-after-free access is reported
// precisely, the way compute-sanitizer reports it.
//
// A library (LibraryLoad) is parsed and decoded once and shared by every
// context. Its .global and .const variables exist once per (library,
// context), allocated on first use in a context and initialised from the
// PTX initialisers; __managed__ variables have one address for all contexts.
//
// # Executor
//
// The kernels run in rt/soft/internal/exec, the executor: each is decoded
// at load time into a register bytecode and run warp by warp, 32 lanes in
// lockstep with min-PC reconvergence, CTAs spread over Options.Workers
// goroutines (exec's package doc says how, and where each instruction
// family lives). A lane that branches to the kernel's ret exits there, as
// ptxas's predicated EXIT does; the registers of lanes that have exited
// are then scratch, so a shfl that reads one (undefined in CUDA) may see
// a value computed after the exit. Anything the executor cannot run fails at LibraryLoad with
// the PTX file:line:col and the opcode, never silently at run time; cugen
// checks that at generate time with rt/soft/loadcheck. The arithmetic is
// rt/soft/internal/gpumath's, the texture unit rt/soft/internal/texunit.
//
// # Floating point
//
// IEEE operations (add, sub, mul, fma, div, sqrt, rcp with .rn/.rz/.rm/.rp,
// conversions) are correctly rounded and so bit-exact with the GPU: fp32 fma
// uses a midpoint check with a round-to-odd slow path instead of
// float32(math.FMA(...)), which double-rounds. On amd64 CPUs with AVX2 and
// FMA3 (x86-64-v3: Haswell, Zen and later) a full warp's fp32 add, sub,
// mul and fma (.rn, no .ftz or .sat), its common 32/64-bit integer ops
// and comparisons, and its coalesced global loads and stores run in
// assembly, four registers an instruction, with the same results (FMA3
// rounds a*b+c once, as the GPU does; NaNs are made the GPU's canonical
// one); other CPUs and GOARCHes, and builds with -tags purego, run the Go
// forms, which CI tests too. The .approx operations that
// run on the multi-function unit (rcp, rsqrt, sqrt, ex2, lg2, sin, cos and
// tanh on f32, with and without .ftz; ex2 and tanh on f16, bf16 and their
// x2 forms) return the H100's bits: each MUFU function's results over its
// fundamental domain were recorded on the GPU and are embedded (1.5 MB,
// decoded the first time an op is used), and the reduction to that domain
// and the instructions ptxas puts around the MUFU op are reproduced exactly
// (internal/gpumath/mufu.go; checked against the H100 for all 2^32 inputs of every form).
// div.approx and div.full (.f32, with and without .ftz) are ptxas's
// MUFU.RCP and FMUL with its scaling; rcp.approx.ftz.f64 and
// rsqrt.approx(.ftz).f64 are MUFU.RCP64H/RSQ64H, which give the f32 unit's
// result truncated to the high word, and rsqrt.approx.f64 ptxas's DFMA
// refinement step and slow path around it (internal/gpumath/fpapprox.go,
// testdata/fpapprox/NOTES.md).
//
// # Textures and surfaces
//
// tex (1d, 2d, 3d, a1d, a2d, cube, acube; f32 and s32 coordinates;
// tex.level and tex.grad on textures without mipmaps), tld4 (2d, a2d,
// cube, acube; on seamless cube maps a gather meeting a corner blends the
// missing texel, integer texels read as integers as integers), with the
// optional texel offsets, depth-compare value and residency predicate d|p
// in every combination PTX allows and ptxas takes, all recorded on the
// H100 (the depth value changes nothing but on tex.grad.1d, which then
// returns 0; d|p is true; tex.grad with .s32 coordinates, but on 1d,
// samples with the registers' bits read as f32; refused at load: offsets
// on cube maps, and what ptxas refuses: .s32 coordinates on tex.level, a
// depth compare with .s32 coordinates or on 3-D textures), suld.b, sust.b,
// sust.p, sured.b, sured.p and the width, height and depth queries of txq
// and suq run against the texture and surface objects of rt's Texturer
// (texture.go). Formatted stores convert as the H100 does (internal/texunit/surface.go:
// integers saturate, f16 rounds toward zero, unorm/snorm are cut to k+4
// fractional bits and rounded ties toward zero, channels the vector lacks
// become 0); reductions are atomic (sured.p's x counts accesses of its
// .b32 or .b64 width whatever the format, as on the H100), and the forms
// ptxas refuses are refused at load. The sampler (internal/texunit) works on its own
// description of a texture (texView) and reproduces the H100's
// fixed-point coordinates, 8-bit filter weights and block-floating-point
// blend (f32 texels rounded to float, f16 texels to half precision, ties
// away), and filters 8/16-bit normalized texels as integers through a
// 16-bit fixed-point result (U/65535, S/32767), decodes sRGB through the
// H100's table (border colours as their 8-bit sRGB code; 16-bit formats
// ignore the flag) and filters it at half precision, and projects cube-map
// directions through MUFU.RCP onto faces sampled as 2-D textures (seamless
// ones filtering across faces); testdata/tex holds the H100's answers and
// its NOTES.md the rules and what is not reproduced.
//
// # Contraction
//
// A mul and an add or sub that name no rounding mode may be fused by ptxas
// into one fma, which rounds once; soft makes the same choices when it
// loads a module, so IEEE-only kernels give the H100's bits. The rules were
// read off the SASS of ptxas 13.0 for sm_75, sm_80 and sm_90 (identical for
// all three, and for f32, .ftz and f64) over the generated corpus of
// rt/soft/internal/contractgen, and checked against 2,700 launches recorded
// on an H100 (testdata/contract):
//
//   - a mul is fused only if every live use of its product is an add or
//     sub that takes it, and then into all of them; a product that is also
//     stored, multiplied or added to itself stays a rounded mul;
//   - mul and add lie in one basic block as ptxas sees it: a label a branch
//     names starts one, unless its only way in is a "bra" from the block
//     before; a call, or a div.rn.f32 (below), ends one for good; a
//     counted loop of constant trip count (at most 64 trips and 256
//     instructions unrolled, no .pragma "nounroll") is unrolled into the
//     blocks around it;
//   - the mul is unguarded and its register's only definition; the add may
//     be guarded; neither has a rounding mode, the mul no .sat, and both
//     the same .ftz (the add's .sat and .ftz carry over to the fma);
//   - a product may reach the add through mov and neg;
//   - adds are visited in program order; where both operands are fusable
//     products, the one with fewer uses is fused, and of equals the first:
//     a*b - c*d becomes fma(a, b, -(c*d)), c*d - a*b fma(c, d, -(a*b));
//   - mul x, 1.0 is a mov (so a NaN keeps its payload); no other algebra
//     ((1-b)*x stays a sub and a mul, also when b is a kernel parameter);
//   - a mul.ftz by 1.0 of a product used nowhere else is a flush, which
//     ptxas absorbs: an add reading its result becomes an fma of the inner
//     product even where the flushed value has other uses (one random
//     program of 240 shows it);
//   - -G modules (".target …, debug") are not contracted; -lineinfo ones
//     (DWARF line tables without the debug target) are.
//
// What soft does not reproduce: ptxas forwarding a value through local
// memory before fusing; and a product of two kernel parameters computed
// before a div.rn.f32 and added after it, which ptxas fuses (it can
// recompute such a product after the division) and soft, by the rule
// below, does not.
//
// A div.{rn,rz,rm,rp}.f32 is a boundary like a call: ptxas expands it into
// a fast path and a call of a slow-path subroutine, and fuses no product of
// loaded values across it. That rule was found in code written elsewhere:
// the CUDA sample BlackScholes computes two options per thread, and ptxas
// 13.0 leaves the first option's "a*b - c*d" subs unfused (their products
// are computed before the second option's div.rn.f32) while it fuses the
// second's. With the rule, soft gives the H100's bits on all 4M options
// (before it, 1.4M of 4M call prices differed). SASS sweeps on the H100
// fused products of kernel parameters across div.rn, rcp.rn, sqrt.rn (f32
// and f64), 64-bit integer div/rem and MUFU ops, and at distances of up to
// 350 instructions; whether rcp.rn, sqrt.rn or f64 divisions stop products
// of loaded values was not measured, so they are no boundary here.
//
// # NaNs
//
// NaN results are the H100's bits, recorded for every floating-point
// instruction over quiet and signalling NaNs of both signs
// (testdata/fpnan.txt.gz, TestNaNTable): f32, f16 and bf16 arithmetic
// (and abs/neg on halves) returns the canonical 0x7fffffff or 0x7fff; f64
// arithmetic returns a NaN operand quieted, payload and sign kept (add,
// sub, mul, min, max: the second operand's first; fma: the second's, the
// addend's, the first's; div: the first's), and 0xfff8000000000000 for an
// invalid operation; float conversions carry the payload's top bits over
// (f32 from f64, f64 from f32, f16 and bf16), cvt.f32.bf16 copies the bits.
// A fused mul+add reads the mul's sources in the order ptxas's DFMA does
// (swapped), which decides between two NaN operands.
//
// # Instruction coverage
//
// Integer and bit operations (add/sub/mul/mad incl. .hi/.wide/.sat/.cc,
// mul24/mad24, sad, div, rem, abs, neg, min, max, and/or/xor/not/cnot,
// shl/shr, popc, clz, brev, bfind, bfe, bfi, prmt, lop3, shf); every setp,
// set and selp form (.and/.or/.xor combination, two destinations, unordered
// and NaN-aware float comparisons, testp); cvt between all integer and
// float types with every rounding and saturation mode; f32/f64/f16/bf16
// (scalar and x2) arithmetic with rounding modes, .ftz and .sat; approximate
// ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh, div; ld/st/ldu in every state
// space with vectors and cache or ordering hints; atom/red (add, min, max,
// inc, dec, cas, exch, and, or, xor on 16/32/64-bit integers, f32, f64 and
// packed halves); cp.async; membar/fence; shfl.sync, vote.sync,
// match.sync, redux.sync, activemask, elect.sync, bar.warp.sync;
// bar/barrier sync, arrive and red with counts on 16 named barriers; call
// and ret with .param blocks (recursion included), calls through function
// pointers (internal/exec/indirect.go), alloca, stacksave and stackrestore (internal/exec/alloca.go: a
// per-thread dynamic stack at local addresses from 0x8000_0000, released
// when the allocating function returns or by stackrestore, bounded with
// the frames by Options.StackBytes), vprintf, __assertfail, malloc/free (internal/exec/malloc.go)
// and the CDP2 device runtime (internal/exec/cdp.go); the special registers; bmsk,
// szext, dp4a, dp2a, fns, packed .u16x2/.s16x2 arithmetic and the SIMD
// video instructions (internal/exec/integer.go); vector atomics; the tensor-core
// instructions below; the PTX ISA 8.x forms of the table below.
//
// # PTX ISA 8.x forms
//
// Checked against the H100 by isa8_test.go, which replays
// testdata/isa8.json.gz bit-exact: 1,946 snippets run there (JIT-compiled
// by driver 580.159.04 for sm_90, or sm_90a for tensormap.replace), each
// over every 16-bit input or over seeded structured and random inputs. A
// snippet the H100's JIT refused must be refused by soft too. (The files
// and testdata named in the table are the executor's, internal/exec's.)
//
//	form                                        soft     recorded rows
//	cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32  yes      16,384 each
//	cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 yes     all 65,536
//	cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}          yes      all 65,536
//	  (internal/gpumath/fp8.go: NaN → 0x7f / 0x7fff; inf and overflow → the largest finite)
//	cvt to fp8 without .satfinite               refused  ptxas: .satfinite required
//	cvt between fp8x2 and bf16x2                 refused  sm_100a (ptxas refuses)
//	cvt.pack.sat.{u16,s16}.s32                   yes      4,096 each
//	cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32     yes      4,096 each
//	cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}{x2}.f32 yes 8,192 each
//	cvt.{rn,rz,rm,rp}.{bf16.f16,f16.bf16}        yes      all 65,536
//	cvt.{rn,rz}{.relu}.satfinite.tf32.f32        refused  sm_100 (ptxas refuses)
//	fma.rn{.ftz}.relu.{f16,bf16}{x2}             yes      4,096 each
//	fma.rn.oob{.relu}.{f16,bf16}{x2}             yes      5,120 each (a or b
//	                                                      0x7ff7/0xfff7 → +0)
//	{min,max}{.ftz}{.NaN}.xorsign.abs.{f32,f16,f16x2,bf16,bf16x2} yes 4,096 each
//	{min,max}.relu.s32                           yes      4,096 each
//	{min,max}.relu on halves                     refused  ptxas refuses
//	{min,max} with three sources (PTX 8.8)       refused  sm_100 (ptxas refuses)
//	abs, neg on f16/bf16 (NaN → 0x7fff)          yes      all 65,536
//	scalar video vadd vsub vabsdiff vmin vmax    yes      1,282 forms, 256 each:
//	  vset vshl vshr vmad with .b0-.b3/.h0/.h1    (video.go) every
//	  selectors, .sat, .add/.min/.max, d.sel              recorded form: every selector,
//	                                                      sign, .sat, op2, merge
//	vmad with a whole-word a and b;             yes      80 and 96 cases, 256
//	  vshl/vshr .sat with a d selector                    rows each (recorded)
//	vmad with negated operands (-a, -b, both,   yes      the PTX ISA's rules; 96
//	  -c)                                                 cases, 256 rows each
//	vmad with -a (or -b) and -c                 refused  ptxas refuses (24 cases)
//	vmad.po with a negated operand              refused  the PTX ISA excludes it
//	tensormap.replace.tile, every field,         yes      86 forms
//	                                                      (tensormap_replace.go)
//	  .global and .shared::cta
//	tensormap.replace.swizzle_atomicity, value  refused  sm_100a / PTX 8.8
//	  4 of swizzle_mode; generic address, sm_90 target
//	mov.b128 (pack two .b64 or four .b32,        yes      15 snippets, 64 rows
//	  unpack, copy), ld/ldu/st.b128 (every                each (b128.go: a
//	  space, .param), atom{.global,.shared}               .b128 register is two
//	  .{cas,exch}.b128                                    64-bit slots)
//	ld/st .v2.b128                               refused  ptxas refuses
//	alloca.{u32,u64} (align 8 to 2^23),          yes      8 snippets (VLAs at
//	  stacksave, stackrestore (PTX 7.3)                   alignments 8-256, reuse
//	                                                      after stackrestore,
//	                                                      generic access, .u32)
//	cp.async.bulk.tensor .im2col and the other   refused  bulk.go: only tile
//	  non-tile load modes                                 mode
//	multimem.*                                   refused  decode_instr.go: no
//	                                                      multicast objects
//	wgmma .sp (f16/bf16/tf32/e4m3/e5m2/s8/u8)    yes      73 forms in testdata/spfit
//	                                                      (96 recorded), probes
//	mma.sp{::ordered_metadata}, every shape and  yes      136 forms, every valid
//	  type ptxas takes for sm_90                          selector (testdata/spfit)
//	mma.sp with C and D of different widths,     refused  ptxas refuses
//	  fp8 mma.sp with f16 accumulators
//	wgmma e4m3/e5m2 (f16, f32 D)                 yes      79 forms in testdata/wgmma
//	                                                      (tensor_sum.go)
//	cvt.rs (stochastic rounding)                 refused  sm_100a
//	cvt.{rni,rzi,rmi,rpi}.bf16.bf16              yes      all 65,536
//	set.CmpOp{.BoolOp}{.ftz}.{f16x2,u32,s32}.f16x2 yes    1,024 each: every
//	  and .{bf16x2,u32,s32}.bf16x2 (1.0/0.0 or            CmpOp, .ftz, 6 with
//	  0xffff/0 per half)                                  {!}c, 4 .u32/.s32
//	set with an .f16/.bf16 destination (1.0/0.0) yes      1,024 each (7 forms,
//	  and .u16/.u32 ones from f16/bf16                    2 forms)
//	brx.idx{.uni} over a .branchtargets list     yes      4 snippets, 1,024 rows
//	  (brx.go: lanes that pick different                  each
//	  labels diverge and meet again by min-pc;
//	  an index past the list faults)
//
// The scalar video instructions have no hardware on sm_90: ptxas emulates
// them, and its sequences depart from the PTX ISA's description, which
// soft follows where the H100 agrees and otherwise copies the H100: with a
// half-word destination selector the field takes the result's bits at its
// place (d.h1 gets bits 16..31, so d.h1 of a small sum is 0); .sat with a
// destination selector clamps the result as an unsigned word to the
// field's largest value, except after vshl/vshr, where the shifted value is
// saturated as without a selector and the field takes its low bits (d.h1:
// bits 16..31); .min and .max with an unsigned destination compare
// the result as a 33-bit two's complement number with c zero-extended (vset
// by a's signedness); vshl computes the shifted value in 64 bits, which
// .min/.max with an unsigned destination compare with c as unsigned
// numbers (a negative value ranks above any c) and which .sat takes as a
// 34-bit two's complement number before clamping; with .u32.sat and .min
// (vshl, vadd, vsub: and .max), after vadd, vsub, vshr or vshl, a result of
// 2^31 or more ranks above any c, and vadd and vsub keep the low 32 bits of
// a sum past 2^32-1 instead of clamping it; vmad sign-extends c, and a
// whole-word (unselected) a or b, whatever the types, and shifts an unsigned
// sum logically; vmad's negated operands follow the PTX ISA (-a or -b
// negates the product, -c negates c, either makes the result signed), and
// ptxas refuses a negated a or b with a negated c. The rules come from the
// recorded forms (testdata/isa8.json.gz), every one of which soft runs
// bit-exact or refuses as the H100's JIT does.
//
// # Tensor cores
//
// mma.sync in every shape and type PTX ISA 8.7 offers on sm_90 (f16 incl.
// the quad-pair m8n8k4, bf16, tf32, e4m3/e5m2, f64, s8/u8, s4/u4 with
// .satfinite, b1 with .xor/.and.popc), wmma.load/store/mma in every shape,
// type, layout, stride and state space, ldmatrix/stmatrix (.m8n8, .x1,
// .x2, .x4, .trans, .b16), movmatrix and cvt.{rna,rn,rz}.tf32.f32 give the
// H100's bits; internal/exec/testdata/mma holds the GPU recordings (random inputs and
// designed ones) that the tests replay. mma fragments follow the PTX ISA's
// layouts. wmma's, which the ISA leaves to the target, are the H100's: a
// fragment is mma tiles (m16n8k16 for f16/bf16/s8/u8, m16n8k8 for tf32,
// the m8n8 shape itself for f64/s4/u4/b1) side by side register after
// register, m8n32k16 is the transposed m32n8k16, f16 multiplicand
// fragments repeat their tiles to fill 8 registers (wmma.mma reads the
// first copy), and .row/.col only change how wmma.load reads memory.
//
// The arithmetic, as measured on the H100 (internal/exec/tensor_sum.go):
//
//   - f16, bf16 and tf32 products with f32 accumulators (one HMMA, k = 16,
//     8 or 4): the products are exact; the k products and C are added as
//     one multi-term sum in which each term is truncated toward zero to the
//     grid 2^-25 below the largest term's exponent (a product's exponent
//     being the sum of its factors', a subnormal factor counting as the
//     format's smallest exponent), the truncated terms are added exactly and
//     the sum is truncated to f32. Overflow gives infinity, an exact zero is
//     +0, any NaN (or inf-inf, inf*0) gives 0x7fffffff; tf32 operands ignore
//     the f32 register's low 13 bits. wmma's m16n16k8 tf32 is two chained
//     k=4 sums per tile.
//   - With f16 C and D, the same sum is rounded to nearest-even f16; with
//     f16 D and f32 C (wmma), the f32 result is rounded to nearest f16.
//   - e4m3/e5m2 are widened to f16 and run as two HMMAs, over the k with
//     k%4 < 2 and then those with k%4 >= 2, chained from zero, with C added
//     last by a round-to-nearest f32 (or f16) addition.
//   - mma.m8n8k4 with .f16 runs on the FP32 units: f32 accumulators are the
//     products added one by one to zero in k order, then C; f16 ones are C
//     plus the products' pairwise sums in order; every step rounds to
//     nearest f32, and an f16 D rounds that to nearest.
//   - f64 (DMMA, and wmma's .rn/.rz/.rm/.rp): a chain of IEEE fused
//     multiply-adds in k order starting from C; a NaN operand comes out
//     quieted with its payload and sign, an invalid operation gives
//     0x7ff8000000000000.
//   - Integers are exact, wrapping modulo 2^32 or clamped with .satfinite;
//     b1 counts the bits of AND or XOR.
//
// Each runs once per warp on the registers of all 32 lanes and writes the
// active lanes, as warp collectives do.
//
// Sparse mma.sp and mma.sp::ordered_metadata (internal/exec/tensor_sparse.go) run every form
// ptxas accepts for sm_90, all recorded on the H100 (internal/exec/testdata/spfit, 136
// forms with every valid selector, and internal/exec/testdata/wgmma): m16n8k16/k32 .f16
// (f16 or f32 accumulators, C and D alike) and .bf16, m16n8k8/k16 .tf32,
// m16n8k64 .e4m3/.e5m2 (f32 accumulators), m16n8k32/k64 .s8/.u8 and
// m16n8k64/k128 .s4/.u4, mixed signedness and .satfinite included. The
// compressed A is the dense A fragment of m16n8k(k/2); the metadata's
// nibbles (two 2-bit positions per chunk of 4 elements, of 4 pairs for
// s4/u4; tf32: 0b0100 or 0b1110 per chunk of 2) are read from the
// selector's lanes of each group of four, 32 bytes of a row's k at a time,
// row g before row g+8, 8 nibbles per register (H100, measured); A is then
// expanded with zeros and summed as the dense m16n8k form, fp8 as two
// chained f16 sums, the even chunks of 4 k first, then C. Metadata that
// repeats a position (undefined in PTX) stops the launch. Refused at load,
// as ptxas refuses them: f16 multiplicands with one f16 and one f32 of C
// and D, fp8 with f16 accumulators (not on sm_90), selectors beyond the
// PTX ISA's range.
//
// wgmma (sm_90a, internal/exec/tensor_wgmma.go): wgmma.fence, commit_group, wait_group and the
// dense wgmma.mma_async forms with f16/bf16 (f16 or f32 D), tf32,
// e4m3/e5m2 (f16 or f32 D), s8/u8 (.satfinite) and b1 (.and.popc)
// multiplicands, every n, A from registers
// or a descriptor, scale-d, imm-scale-a/b and imm-trans-a/b. Warp q of a
// warpgroup owns rows 16q..16q+15 of D, which need only its own A rows and
// B, so each warp computes its slice with the mma.sync arithmetic above
// (measured identical for these types: one HGMMA k-step sums like one
// HMMA; fp8 excepted, below); mma_async records the operation with its descriptors and scale-d,
// and wait_group N completes the warp's groups but the newest N, reading
// the operands and writing D then. Shared-memory matrix descriptors follow
// the PTX ISA (start, LBO, SBO in 16-byte units, base offset, swizzle
// none/128B/64B/32B; K-major, or MN-major when transposed); the swizzle
// XORs address bits 4-6 with bits 7-9 less the base offset (H100,
// measured). internal/exec/testdata/wgmma holds the H100's outputs (layout probes,
// random, cancelling and designed inputs) that soft replays bit for bit.
// fp8 wgmma (QGMMA) sums differently from fp8 mma.sync and keeps fewer
// bits (internal/exec/tensor_sum.go, fitted to the 79 recorded fp8 forms): the 32
// products and C form one multi-term sum, each term truncated toward zero
// to 13 fraction bits below the largest exponent (a product's being the
// sum of its factors', a subnormal e4m3 factor counting as 2^-6 and an
// e5m2 one as 2^-14), added exactly, then truncated to 14 significant
// bits for an f32 D (its low 10 fraction bits are always zero) or rounded
// to nearest f16. Mixed s8/u8 wgmma (PTX 8.4; 12 forms, .satfinite
// included) sums exactly like s8/s8, as recorded.
//
// Sparse wgmma (wgmma.mma_async.sp, PTX 8.2) runs for every type (f16 and
// bf16 k32, tf32 k16, e4m3/e5m2 k64 with f16 or f32 D, s8/u8 k64 with
// mixed signedness and .satfinite), A from registers or a descriptor: A is
// stored compressed (64 × k/2, its registers and descriptor those of a
// dense A of k/2 columns) and each warp expands its 16 rows by its lanes'
// metadata exactly as mma.sp m16nNk does (selector 0..1 for k32/k16, 0 for
// k64), then sums as the dense wgmma of k (fp8: the QGMMA sum above, the
// zeros included). B has k of 64 bytes; with 32-byte swizzling the second
// 32 bytes of each row lie LBO bytes on (H100, measured). internal/exec/testdata/spfit
// holds the 209 sparse wgmma and mma.sp forms soft replays bit for bit
// (layout probes, random and cancelling inputs; 232 recorded and checked).
//
// # Clusters and asynchronous copies
//
// A cluster's CTAs run together on one worker, taking turns warp by warp
// (internal/exec/cluster.go), so they can read each other's shared memory and meet at
// barrier.cluster. mbarrier (internal/exec/mbarrier.go) keeps its state in its 8 bytes
// of shared memory; a try_wait that has to wait parks its lanes until the
// phase completes, and wakes them with false only when nothing else can
// run. Bulk and tensor copies, st.async and red.async (internal/exec/bulk.go,
// internal/exec/tensorcopy.go) move their data when issued and then complete their tx
// bytes on the mbarrier, which no valid program can tell from a later
// completion. A cooperative launch gets the grid-sync workspace that
// cooperative_groups' grid.sync() expects (internal/exec/coop.go). A CTA's shared
// window is laid out as the H100's: the first 1 KB is the system's
// (%reserved_smem_offset_begin/end/cap read 0/288/1024, _0 and _1 read 0;
// cooperative groups keep scratch there), static shared memory starts at
// 1024 and dynamic after it, 16-aligned; %total_smem_size is the kernel's
// own part in 128-byte units and %aggr_smem_size the whole window, unrounded
// (both as measured on the H100 for 9 static/dynamic sizes). The reserved KB counts toward no limit a
// program sees (sharedSizeBytes, the 227 KB opt-in). A backward branch
// closing a polling loop (one that reads with ld.volatile, .relaxed or
// .acquire) lets the warp's siblings run before it goes round again, so a
// warp may wait for a later one. tensormap.replace
// rewrites a map in place (internal/exec/tensormap_replace.go). Refused at load, with the
// reason: multimem and im2col tensor copies (indirect branches run as
// brx.idx, internal/exec/brx.go; a register target in bra is not PTX and is refused).
//
// # Memcheck
//
// Out-of-bounds, freed-memory and misaligned accesses, barriers that can never
// release, and kernels that exceed Options.InstrBudget stop the launch with
// an *rt.Error whose Detail names the kernel, block, thread, PTX line and
// address, and the .cu file, line and column first when the PTX carries
// line information (nvcc -lineinfo, clang -gline-tables-only). As on a GPU,
// such a fault is sticky: the Driver (the process) is
// unusable afterwards, every call that works in any of its contexts returns
// the fault, and a new Driver is the way back (sticky.go, rt.Result.Sticky).
//
// Runaway kernels: Options.LaunchTimeout bounds each launch's wall-clock
// time as a display GPU's watchdog does, and Driver.Abort stops every
// launch (on an interrupt, say); either leaves the sticky
// CUDA_ERROR_LAUNCH_TIMEOUT, and running kernels stop within milliseconds
// (the clock and the driver's fault are read where the instruction budget
// is charged, internal/exec/interrupt.go). A call takes at least 16 bytes
// of Options.StackBytes, which bounds the call depth of recursion that
// has no local frame.
//
// A synchronous copy or memset that touches memory which a kernel or async
// copy on a non-blocking stream, not synchronized with since, writes (or
// reads, when the host writes) fails with ErrIllegalState naming both sides
// (hazard.go): on a GPU it would race.
//
// # Racecheck and shuffled scheduling
//
// Options.RaceCheck (or CUGEN_SOFT_RACECHECK=1, =strict) reports data
// hazards between a CTA's threads in shared and global memory, naming both
// accesses, as compute-sanitizer's racecheck does (internal/exec/racecheck.go says what
// orders accesses). It also reports work on two streams of a driver that
// touches the same bytes, one writing, with nothing ordering the two
// (events, the stream order, the legacy NULL stream's, host
// synchronization): the second submission fails with ErrIllegalState
// naming both (streamrace.go). Options.ShuffleSeed (CUGEN_SOFT_SHUFFLE=<seed>) runs
// warps in a seeded random order to shake out order-dependent code.
package soft
