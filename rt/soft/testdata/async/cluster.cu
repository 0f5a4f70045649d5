// Thread-block clusters: the cluster special registers, distributed shared
// memory through mapa, getctarank and .shared::cluster accesses, the
// cluster barrier, and bulk copies into other CTAs' shared memory
// (multicast included). Compiled by nvcc for sm_90a (cluster.ptx) and run on
// the H100 by record.cu; cluster_test.go runs the same PTX in rt/soft.

typedef unsigned long long u64;

#ifndef ASYNC13_SA
#define ASYNC13_SA
__device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#endif
__device__ __forceinline__ unsigned sreg(int k) {
    unsigned v = 0;
    switch (k) {
    case 0: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v)); break;
    case 6: asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v)); break;
    case 7: asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(v)); break;
    case 8: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 9: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 10: asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v)); break;
    case 11: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    case 12: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
    case 13: asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(v)); break;
    case 14: asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(v)); break;
    }
    return v;
}

// specials: out[cta*16 + k] for the CTA's registers (launched with and
// without a cluster dimension).
extern "C" __global__ void clusterSpecials(unsigned *out) {
    unsigned cta = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    if (threadIdx.x < 15) out[cta * 16 + threadIdx.x] = sreg(threadIdx.x);
    if (threadIdx.x == 15) out[cta * 16 + 15] = cta;
}

// The same with the cluster shape in the kernel (__cluster_dims__).
extern "C" __global__ void __cluster_dims__(2, 1, 1) clusterFixed(unsigned *out) {
    unsigned cta = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    if (threadIdx.x < 15) out[cta * 16 + threadIdx.x] = sreg(threadIdx.x);
    if (threadIdx.x == 15) out[cta * 16 + 15] = cta;
}

// ring: each CTA fills its shared memory, and after the cluster barrier
// every thread reads its neighbour's (rank+1) through mapa and
// ld.shared::cluster and the next one's (rank+2) through a generic
// address; all add into rank 0's counter with atom.shared::cluster, and
// rank 0 writes the counter after a second barrier.
extern "C" __global__ void clusterRing(unsigned *out, unsigned *counter) {
    __shared__ unsigned buf[128];
    __shared__ unsigned count;
    unsigned rank, n;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    unsigned cta = blockIdx.x + blockIdx.y * gridDim.x;
    unsigned t = threadIdx.x;
    buf[t] = cta * 1000 + t;
    if (t == 0) count = 0;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned nb, v1, v2, r0, back;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(nb) : "r"(sa(&buf[t])), "r"((rank + 1) % n));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v1) : "r"(nb) : "memory");
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(back) : "r"(nb));
    unsigned *gen;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(gen) : "l"(&buf[t]), "r"((rank + 2) % n));
    v2 = *gen;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(r0) : "r"(sa(&count)));
    asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(r0), "r"(v1 + 1) : "memory");
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    out[(cta * 128 + t) * 3 + 0] = v1;
    out[(cta * 128 + t) * 3 + 1] = v2;
    out[(cta * 128 + t) * 3 + 2] = back;
    if (rank == 0 && t == 0) counter[cta] = count;
    asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::: "memory");
}

// bulk: rank 0's thread 0 copies src (n bytes) into every CTA's shared
// memory with one multicast cp.async.bulk, each CTA waits on its own
// mbarrier; then each CTA copies its shared memory, plus rank*1, back to
// dst + rank*n with cp.async.bulk.global.shared::cta and adds it into acc
// with cp.reduce.async.bulk .add.u32.
extern "C" __global__ void clusterBulk(const unsigned *src, unsigned *dst, unsigned *acc, unsigned n) {
    __shared__ __align__(128) unsigned buf[1024];
    __shared__ __align__(128) unsigned mine[1024];
    __shared__ u64 bar;
    unsigned rank, nr;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nr));
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&bar)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&bar)), "r"(n) : "memory");
        if (rank == 0) {
            unsigned short mask = (1u << nr) - 1;
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
                         ::"r"(sa(buf)), "l"(src), "r"(n), "r"(sa(&bar)), "h"(mask) : "memory");
        }
    }
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" ::"r"(sa(&bar)) : "memory");
    for (unsigned i = threadIdx.x; i < n / 4; i += blockDim.x) mine[i] = buf[i] + rank;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + rank * (n / 4)), "r"(sa(mine)), "r"(n) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;" ::"l"(acc), "r"(sa(mine)), "r"(n) : "memory");
        asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}
