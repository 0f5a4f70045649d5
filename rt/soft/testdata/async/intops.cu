// Integer instructions without a C++ operator (bmsk, szext, dp4a, dp2a, fns
// and the SIMD video instructions), one asm statement each: compiled by nvcc
// for sm_90 (intops.ptx) and run on the H100 by record.cu over the inputs of
// intopsInputs, whose results rt/soft must reproduce (intops_test.go).

#define OP(i, s, ...) asm(s : "=r"(d[i]) : __VA_ARGS__)
#define N_INTOPS 34

extern "C" __global__ void intops(const unsigned *A, const unsigned *B, const unsigned *C, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = A[i], b = B[i], c = C[i], d[N_INTOPS];
    OP(0, "bmsk.clamp.b32 %0, %1, %2;", "r"(a), "r"(b));
    OP(1, "bmsk.wrap.b32 %0, %1, %2;", "r"(a), "r"(b));
    OP(2, "szext.clamp.s32 %0, %1, %2;", "r"(c), "r"(b));
    OP(3, "szext.wrap.s32 %0, %1, %2;", "r"(c), "r"(b));
    OP(4, "szext.clamp.u32 %0, %1, %2;", "r"(c), "r"(b));
    OP(5, "szext.wrap.u32 %0, %1, %2;", "r"(c), "r"(b));
    OP(6, "dp4a.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(7, "dp4a.u32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(8, "dp4a.s32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(9, "dp4a.s32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(10, "dp2a.lo.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(11, "dp2a.hi.s32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(12, "dp2a.lo.s32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(13, "dp2a.hi.u32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(14, "fns.b32 %0, %1, %2, %3;", "r"(a), "r"(b & 31), "r"((int)(c % 41) - 20));
    OP(15, "vadd4.u32.u32.u32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(16, "vsub4.s32.s32.s32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(17, "vavrg4.u32.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(18, "vavrg4.s32.s32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(19, "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(20, "vmin4.s32.s32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(21, "vmax4.u32.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(22, "vset4.u32.u32.lt %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(23, "vset4.s32.s32.ge.add %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(24, "vadd2.s32.s32.s32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(25, "vsub2.u32.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(26, "vabsdiff2.s32.s32.s32.add %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(27, "vmin2.u32.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(28, "vmax2.s32.s32.s32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(29, "vset2.s32.u32.ne %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(30, "vavrg2.s32.s32.s32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(31, "vadd4.s32.u32.s32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(32, "vsub4.u32.u32.u32 %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    OP(33, "vabsdiff4.s32.s32.s32.sat %0, %1, %2, %3;", "r"(a), "r"(b), "r"(c));
    for (int k = 0; k < N_INTOPS; k++) out[k * n + i] = d[k];
}
