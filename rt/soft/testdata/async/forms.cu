// What nvcc makes of C++ that uses clusters (cooperative_groups), device
// malloc/free/new/delete, function pointers and the SIMD intrinsics:
// compiled by nvcc for sm_90 (forms.ptx), run on the H100 by record.cu and
// in rt/soft by forms_test.go.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// cgCluster: each block writes its rank into its shared memory; after
// cluster.sync() every thread reads the next block's value through
// map_shared_rank.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cgCluster(unsigned *out) {
    __shared__ unsigned v[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    v[threadIdx.x] = r * 100 + threadIdx.x;
    cl.sync();
    unsigned *nb = cl.map_shared_rank(v, (r + 1) % cl.num_blocks());
    unsigned x = nb[threadIdx.x];
    cl.sync();
    out[blockIdx.x * 64 + threadIdx.x] = x + 1000000 * cl.dim_blocks().x;
}

// heap: every thread mallocs a few ints, new[]s an array, fills and sums
// them and frees them; thread 0 of block 0 also keeps one allocation for
// heapRead to read and free in a later launch.
__device__ int *kept;

extern "C" __global__ void heap(int *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n = 1 + t % 7;
    int *p = (int *)malloc(n * sizeof(int));
    long long *q = new long long[n];
    int s = -1;
    if (p && q) {
        s = 0;
        for (int i = 0; i < n; i++) {
            p[i] = t + i;
            q[i] = 2LL * p[i];
        }
        for (int i = 0; i < n; i++) s += p[i] + (int)q[i];
    }
    free(p);
    delete[] q;
    out[t] = s;
    if (t == 0) {
        kept = (int *)malloc(16);
        if (kept) kept[3] = 4242;
    }
}

extern "C" __global__ void heapRead(int *out) {
    out[0] = kept ? kept[3] : -1;
    free(kept);
    kept = 0;
}

// funcPtr: a table of device functions, called through pointers chosen
// per thread (so a warp's lanes diverge), one of them recursive.
typedef int (*op_t)(int, int);
__device__ int addOp(int a, int b) { return a + b; }
__device__ int mulOp(int a, int b) { return a * b; }
__device__ int fibOp(int a, int b);
__device__ op_t table[3] = {addOp, mulOp, fibOp};
__device__ int fibOp(int a, int b) {
    a &= 15;
    return a < 2 ? a + b : table[2](a - 1, b) + table[2](a - 2, 0);
}

extern "C" __global__ void funcPtr(const int *a, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    op_t f = table[a[t] % 3];
    out[t] = f(a[t], t);
}

// simd: the SIMD and bit intrinsics, one result each.
#define NSIMD 24
extern "C" __global__ void simd(const unsigned *A, const unsigned *B, unsigned *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned a = A[t], b = B[t], r[NSIMD];
    r[0] = __vabsdiffu4(a, b);
    r[1] = __vabsdiffs2(a, b);
    r[2] = __vadd2(a, b);
    r[3] = __vaddss4(a, b);
    r[4] = __vaddus2(a, b);
    r[5] = __vavgu4(a, b);
    r[6] = __vavgs2(a, b);
    r[7] = __vcmpgtu4(a, b);
    r[8] = __vcmples2(a, b);
    r[9] = __vmaxs4(a, b);
    r[10] = __vminu2(a, b);
    r[11] = __vsadu4(a, b);
    r[12] = __vsub4(a, b);
    r[13] = __vsubss2(a, b);
    r[14] = __vseteq4(a, b);
    r[15] = __dp4a(a, b, (unsigned)t);
    r[16] = __dp2a_lo(a, b, (unsigned)t);
    r[17] = __dp2a_hi((int)a, (int)b, t);
    r[18] = __fns(a, b & 31, (int)(t % 9) - 4);
    r[19] = __byte_perm(a, b, (unsigned)t);
    r[20] = __usad(a, b, (unsigned)t);
    r[21] = __vhaddu4(a, b);
    r[22] = __vnegss2(a);
    r[23] = __vabsss4(a);
    for (int k = 0; k < NSIMD; k++) out[k * n + t] = r[k];
}
