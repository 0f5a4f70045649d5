// Tensor copies (cp.async.bulk.tensor, tile mode) through tensor maps the
// H100's driver encodes: swizzles, out-of-bounds fills, element strides,
// 1-D to 5-D boxes, and a store. Compiled by nvcc for sm_90 (tma.ptx) and
// run by record.cu, which records each map's 128 bytes and what landed in
// shared memory (or global memory); tma_test.go feeds the same bytes to
// rt/soft.

#include <cuda.h>
typedef unsigned long long u64;

#ifndef ASYNC13_SA
#define ASYNC13_SA
__device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#endif

// waitPhase0 waits for the copy, a bounded time: a box of another size
// than the kernel expects would never complete the phase.
__device__ __forceinline__ bool waitPhase0(u64 *bar) {
    for (int i = 0; i < (1 << 20); i++) {
        unsigned ok;
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(sa(bar)) : "memory");
        if (ok) return true;
    }
    return false;
}

// tmaLoad copies the box at c[0..4] of a rank-dims map into shared memory
// and then writes the first bytes of shared memory to out.
extern "C" __global__ void tmaLoad(const __grid_constant__ CUtensorMap map, int dims, int c0, int c1, int c2, int c3, int c4,
                                   unsigned char *out, int bytes) {
    __shared__ __align__(1024) unsigned char buf[16384];
    __shared__ u64 bar;
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) buf[i] = 0xEE;
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar)) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&bar)), "r"(bytes) : "memory");
        unsigned d = sa(buf), b = sa(&bar);
        const void *m = &map;
        switch (dims) {
        case 1:
            asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                         ::"r"(d), "l"(m), "r"(c0), "r"(b) : "memory");
            break;
        case 2:
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                         ::"r"(d), "l"(m), "r"(c0), "r"(c1), "r"(b) : "memory");
            break;
        case 3:
            asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                         ::"r"(d), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(b) : "memory");
            break;
        case 4:
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                         ::"r"(d), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(b) : "memory");
            break;
        case 5:
            asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                         ::"r"(d), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(b) : "memory");
            break;
        }
    }
    __shared__ bool done;
    if (threadIdx.x == 0) done = waitPhase0(&bar);
    __syncthreads();
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = done ? buf[i] : 0xDD;
}

// tmaStore fills shared memory with in[0..bytes) and stores it as the box
// at (c0, c1) of a 2-D map.
extern "C" __global__ void tmaStore(const __grid_constant__ CUtensorMap map, int c0, int c1, const unsigned char *in, int bytes) {
    __shared__ __align__(1024) unsigned char buf[16384];
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) buf[i] = in[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&map), "r"(c0), "r"(c1), "r"(sa(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
