// mbarrier's phases, pending counts and tx-counts, one thread at a time:
// compiled by nvcc for sm_90 (mbarrier.ptx) and run on the H100 by
// record.cu; rt/soft must write the same trace (mbarrier_test.go).

typedef unsigned long long u64;

#ifndef ASYNC13_SA
#define ASYNC13_SA
__device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#endif

__device__ __forceinline__ u64 arrive(u64 *b, unsigned n) {
    u64 s;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;" : "=l"(s) : "r"(sa(b)), "r"(n) : "memory");
    return s;
}
__device__ __forceinline__ u64 arrive1(u64 *b) {
    u64 s;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(sa(b)) : "memory");
    return s;
}
__device__ __forceinline__ u64 arriveDrop(u64 *b) {
    u64 s;
    asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(s) : "r"(sa(b)) : "memory");
    return s;
}
__device__ __forceinline__ u64 arriveTx(u64 *b, unsigned tx) {
    u64 s;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(s) : "r"(sa(b)), "r"(tx) : "memory");
    return s;
}
__device__ __forceinline__ void expectTx(u64 *b, unsigned tx) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(sa(b)), "r"(tx) : "memory");
}
__device__ __forceinline__ void completeTx(u64 *b, unsigned tx) {
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(sa(b)), "r"(tx) : "memory");
}
__device__ __forceinline__ unsigned pending(u64 s) {
    unsigned n;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(s));
    return n;
}
__device__ __forceinline__ unsigned testWait(u64 *b, u64 s) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(sa(b)), "l"(s) : "memory");
    return r;
}
__device__ __forceinline__ unsigned testParity(u64 *b, unsigned par) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(sa(b)), "r"(par) : "memory");
    return r;
}
__device__ __forceinline__ unsigned tryWait(u64 *b, u64 s) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2, 1000; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(sa(b)), "l"(s) : "memory");
    return r;
}
__device__ __forceinline__ unsigned tryParity(u64 *b, unsigned par) {
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(sa(b)), "r"(par) : "memory");
    return r;
}

// trace records, after each step, pending_count of the state an arrive
// returned and what test_wait and the parity waits say.
extern "C" __global__ void mbarTrace(unsigned *out) {
    __shared__ u64 bar;
    int k = 0;
#define REC(v) out[k++] = (v)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(sa(&bar)), "r"(3) : "memory");
    u64 s0 = arrive1(&bar);                 // phase 0: 3 expected
    REC(pending(s0)); REC(testWait(&bar, s0)); REC(testParity(&bar, 0)); REC(testParity(&bar, 1));
    u64 s1 = arrive(&bar, 1);
    REC(pending(s1)); REC(testWait(&bar, s1)); REC(tryWait(&bar, s1));
    u64 s2 = arrive1(&bar);                 // completes phase 0
    REC(pending(s2)); REC(testWait(&bar, s0)); REC(testWait(&bar, s2)); REC(testParity(&bar, 0)); REC(testParity(&bar, 1));
    REC(tryParity(&bar, 0));
    u64 s3 = arriveDrop(&bar);              // phase 1: 2 expected from phase 2 on
    REC(pending(s3)); REC(testWait(&bar, s3));
    u64 s4 = arrive(&bar, 2);               // completes phase 1
    REC(pending(s4)); REC(testWait(&bar, s3)); REC(testParity(&bar, 1)); REC(testParity(&bar, 0));
    expectTx(&bar, 64);                     // phase 2: 2 arrivals and 64 bytes
    u64 s5 = arrive(&bar, 2);
    REC(pending(s5)); REC(testWait(&bar, s5)); REC(testParity(&bar, 0));
    completeTx(&bar, 48);
    REC(testWait(&bar, s5));
    completeTx(&bar, 16);                   // completes phase 2
    REC(testWait(&bar, s5)); REC(testParity(&bar, 0)); REC(testParity(&bar, 1));
    u64 s6 = arriveTx(&bar, 32);            // phase 3
    REC(pending(s6)); REC(testWait(&bar, s6));
    completeTx(&bar, 32);
    REC(testWait(&bar, s6));
    u64 s7 = arrive1(&bar);                 // completes phase 3
    REC(pending(s7)); REC(testWait(&bar, s6)); REC(testParity(&bar, 1));
    completeTx(&bar, 8);                    // phase 4: tx-count -8 before any expect
    u64 s8 = arriveTx(&bar, 8);
    REC(pending(s8)); REC(testWait(&bar, s8));
    u64 s9 = arrive1(&bar);
    REC(pending(s9)); REC(testWait(&bar, s8)); REC(testParity(&bar, 0));
    asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(sa(&bar)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sa(&bar)), "r"(1) : "memory");
    REC(testParity(&bar, 0)); REC(testParity(&bar, 1));
    u64 s10 = arrive1(&bar);
    REC(pending(s10)); REC(testParity(&bar, 0));
    out[k] = 0xffffffff; // end
}

// pipeline: warp 0 produces nphase rounds of data, warp 1 consumes them
// through two mbarriers (full and empty), each round waited on with
// try_wait.parity in a loop; out[r*32+lane] = what the consumer read.
extern "C" __global__ void mbarPipeline(unsigned *out, int rounds) {
    __shared__ u64 full, empty;
    __shared__ unsigned data[32];
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(sa(&full)) : "memory");
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(sa(&empty)) : "memory");
    }
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        unsigned par = r & 1;
        if (w == 0) {
            if (r > 0) {
                while (!tryParity(&empty, par ^ 1)) {}
            }
            data[lane] = r * 1000 + lane;
            arrive1(&full);
        } else {
            while (!tryParity(&full, par)) {}
            out[r * 32 + lane] = data[lane];
            arrive1(&empty);
        }
    }
}
