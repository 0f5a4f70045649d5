// record runs the kernels of intops.cu, mbarrier.cu, cluster.cu, tma.cu,
// forms.cu and cdp.cu on the GPU and writes what they produced into the
// directory argv[1] (one file per area, each line "name hex hex ...");
// the Go tests compare rt/soft's results with these. Built on the GPU
// machine with:
//
//	nvcc -O2 -arch=sm_90a -rdc=true -o record record.cu -lcuda -lcudadevrt
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#include "intops.cu"
#include "mbarrier.cu"
#include "cluster.cu"
#include "tma.cu"
#include "forms.cu"
#include "cdp.cu"

static const char *dir;
static FILE *openOut(const char *name) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) { perror(p); exit(1); }
    return f;
}
static bool check(const char *what, cudaError_t e) {
    if (e != cudaSuccess) {
        printf("%s: %s\n", what, cudaGetErrorString(e));
        fflush(stdout);
        return false;
    }
    return true;
}
static bool finish(const char *what) { return check(what, cudaGetLastError()) && check(what, cudaDeviceSynchronize()); }
static void line(FILE *f, const char *name, const void *p, size_t n) { // n 32-bit words
    fprintf(f, "%s", name);
    for (size_t i = 0; i < n; i++) fprintf(f, " %x", ((const unsigned *)p)[i]);
    fprintf(f, "\n");
    fflush(f);
}
static void bytesLine(FILE *f, const char *name, const void *p, size_t n) {
    fprintf(f, "%s ", name);
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", ((const unsigned char *)p)[i]);
    fprintf(f, "\n");
    fflush(f);
}
static unsigned lcgState = 12345;
static unsigned lcg() { lcgState = lcgState * 1664525u + 1013904223u; return lcgState; }
template <class T> T *dev(size_t n) { T *p; cudaMalloc(&p, n * sizeof(T)); cudaMemset(p, 0, n * sizeof(T)); return p; }
template <class T> std::vector<T> get(const T *p, size_t n) { std::vector<T> v(n); cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost); return v; }

template <class... A>
static bool launchCluster(void (*k)(A...), dim3 grid, dim3 block, dim3 cl, A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cl.x, at[0].val.clusterDim.y = cl.y, at[0].val.clusterDim.z = cl.z;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return check("cudaLaunchKernelEx", cudaLaunchKernelEx(&cfg, k, args...));
}

static void recIntops() {
    const int n = 2048;
    std::vector<unsigned> a(n), b(n), c(n);
    lcgState = 12345;
    for (int i = 0; i < n; i++) {
        if (i < 1296) a[i] = i % 36, b[i] = i / 36, c[i] = lcg();
        else a[i] = lcg(), b[i] = lcg(), c[i] = lcg();
    }
    unsigned *A = dev<unsigned>(n), *B = dev<unsigned>(n), *C = dev<unsigned>(n), *O = dev<unsigned>(n * N_INTOPS);
    cudaMemcpy(A, a.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, b.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(C, c.data(), n * 4, cudaMemcpyHostToDevice);
    intops<<<n / 128, 128>>>(A, B, C, O, n);
    if (!finish("intops")) return;
    std::vector<unsigned> o = get(O, n * N_INTOPS);
    FILE *f = openOut("intops.txt");
    char name[32];
    for (int k = 0; k < N_INTOPS; k++) {
        snprintf(name, sizeof name, "op%d", k);
        line(f, name, &o[k * n], n);
    }
    fclose(f);
}

static void recMbarrier() {
    FILE *f = openOut("mbarrier.txt");
    unsigned *O = dev<unsigned>(128);
    mbarTrace<<<1, 1>>>(O);
    if (finish("mbarTrace")) {
        std::vector<unsigned> o = get(O, 128);
        int n = 0;
        while (n < 128 && o[n] != 0xffffffff) n++;
        line(f, "trace", o.data(), n);
    }
    const int rounds = 6;
    unsigned *P = dev<unsigned>(rounds * 32);
    mbarPipeline<<<1, 64>>>(P, rounds);
    if (finish("mbarPipeline")) {
        std::vector<unsigned> o = get(P, rounds * 32);
        line(f, "pipeline", o.data(), rounds * 32);
    }
    fclose(f);
}

static void recCluster() {
    FILE *f = openOut("cluster.txt");
    unsigned *O = dev<unsigned>(64 * 16);
    if (launchCluster(clusterSpecials, dim3(4, 2, 2), dim3(32), dim3(2, 2, 1), O) && finish("clusterSpecials")) {
        std::vector<unsigned> o = get(O, 16 * 16);
        line(f, "specials_cluster221_grid422", o.data(), o.size());
    }
    clusterSpecials<<<dim3(3, 2, 1), 32>>>(O);
    if (finish("clusterSpecials plain")) {
        std::vector<unsigned> o = get(O, 6 * 16);
        line(f, "specials_plain_grid321", o.data(), o.size());
    }
    clusterFixed<<<dim3(4, 1, 1), 32>>>(O);
    if (finish("clusterFixed")) {
        std::vector<unsigned> o = get(O, 4 * 16);
        line(f, "specials_fixed_grid4", o.data(), o.size());
    }
    unsigned *R = dev<unsigned>(8 * 128 * 3), *Cn = dev<unsigned>(8);
    if (launchCluster(clusterRing, dim3(4, 2, 1), dim3(128), dim3(4, 1, 1), R, Cn) && finish("clusterRing")) {
        std::vector<unsigned> o = get(R, 8 * 128 * 3), c = get(Cn, 8);
        line(f, "ring", o.data(), o.size());
        line(f, "ring_counter", c.data(), c.size());
    }
    const unsigned n = 4096;
    std::vector<unsigned> src(n / 4);
    for (unsigned i = 0; i < n / 4; i++) src[i] = i * 7 + 1;
    unsigned *S = dev<unsigned>(n / 4), *D = dev<unsigned>(n), *A = dev<unsigned>(n / 4);
    cudaMemcpy(S, src.data(), n, cudaMemcpyHostToDevice);
    if (launchCluster(clusterBulk, dim3(4), dim3(128), dim3(4, 1, 1), (const unsigned *)S, D, A, n) && finish("clusterBulk")) {
        std::vector<unsigned> d = get(D, n), a = get(A, n / 4);
        line(f, "bulk_dst", d.data(), d.size());
        line(f, "bulk_acc", a.data(), a.size());
    }
    fclose(f);
}

// A tensor case: the tensor (dims, element type), the box, swizzle,
// element strides, fill, and where the box starts.
struct tcase {
    const char *name;
    CUtensorMapDataType type;
    int esize, rank;
    cuuint64_t dims[5];
    cuuint32_t box[5], estr[5];
    CUtensorMapSwizzle sw;
    CUtensorMapFloatOOBfill fill;
    int c[5];
    int bytes;
};

static void recTMA(const char *only) {
    char fname[128];
    snprintf(fname, sizeof fname, "tma_%s.txt", *only ? only : "all");
    FILE *f = openOut(fname);
    auto U = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    tcase cases[] = {
        {"f32_inside", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {40, 24}, {16, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {8, 4}, 512},
        {"f32_oob_zero", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {40, 24}, {16, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {-4, 20}, 512},
        {"f32_oob_nan", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 2, {40, 24}, {16, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, {-4, 20}, 512},
        {"f16_oob_nan", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 2, {64, 16}, {16, 4}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, {56, 14}, 128},
        {"bf16_oob_nan", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, 2, {64, 16}, {16, 4}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, {56, 14}, 128},
        {"f64_oob_nan", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8, 2, {16, 8}, {8, 4}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, {12, -2}, 256},
        {"u16_swz128", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, 2, {128, 16}, {64, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {64, 8}, 1024},
        {"u16_swz64", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, 2, {128, 16}, {32, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {0, 0}, 512},
        {"u16_swz32", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, 2, {128, 16}, {16, 8}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {16, 4}, 256},
        {"u16_swz128_oob", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, 2, {100, 16}, {64, 16}, {1, 1}, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {48, 4}, 2048},
        {"f32_3d", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 3, {16, 4, 6}, {8, 2, 3}, {1, 1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {4, 3, 4}, 192},
        {"u8_3d", U, 1, 3, {32, 4, 6}, {16, 2, 3}, {1, 1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {8, 3, 4}, 96},
        {"u8_3d_128", U, 1, 3, {64, 4, 6}, {32, 2, 2}, {1, 1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {40, 3, 5}, 128},
        {"u32_5d", CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, 5, {8, 2, 2, 2, 3}, {4, 2, 1, 2, 2}, {1, 1, 1, 1, 1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {4, 0, 1, -1, 2}, 128},
        {"f32_1d", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 1, {100}, {32}, {1}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {80}, 128},
        {"u32_estr12", CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, 2, {64, 32}, {16, 8}, {1, 2}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {4, 3}, 256},
        {"u32_estr23", CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, 2, {64, 32}, {16, 8}, {2, 3}, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, {4, 27}, 192},
    };
    const size_t tbytes = 1 << 16;
    std::vector<unsigned char> host(tbytes);
    for (size_t i = 0; i < tbytes; i++) host[i] = (unsigned char)(i * 7 + 3);
    unsigned char *T = dev<unsigned char>(tbytes), *O = dev<unsigned char>(16384);
    cudaMemcpy(T, host.data(), tbytes, cudaMemcpyHostToDevice);
    for (auto &tc : cases) {
        if (*only && strcmp(only, tc.name) != 0) continue;
        cuuint64_t strides[4];
        cuuint64_t s = tc.dims[0] * tc.esize;
        for (int i = 1; i < tc.rank; i++) {
            s = (s + 15) / 16 * 16;
            strides[i - 1] = s;
            s *= tc.dims[i];
        }
        CUtensorMap m;
        CUresult r = cuTensorMapEncodeTiled(&m, tc.type, tc.rank, T, tc.dims, strides, tc.box, tc.estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            tc.sw, CU_TENSOR_MAP_L2_PROMOTION_NONE, tc.fill);
        if (r != CUDA_SUCCESS) {
            fprintf(f, "%s encode-error %d\n", tc.name, r);
            continue;
        }
        cudaMemset(O, 0xEE, 16384);
        tmaLoad<<<1, 128>>>(m, tc.rank, tc.c[0], tc.c[1], tc.c[2], tc.c[3], tc.c[4], O, tc.bytes);
        if (!finish(tc.name)) {
            fprintf(f, "%s launch-error\n", tc.name);
            fflush(f);
            cudaGetLastError();
            continue;
        }
        std::vector<unsigned char> o = get(O, tc.bytes);
        fprintf(f, "%s rank %d esize %d dims", tc.name, tc.rank, tc.esize);
        for (int i = 0; i < tc.rank; i++) fprintf(f, " %llu", (unsigned long long)tc.dims[i]);
        fprintf(f, " coords");
        for (int i = 0; i < tc.rank; i++) fprintf(f, " %d", tc.c[i]);
        fprintf(f, " bytes %d\n", tc.bytes);
        bytesLine(f, "map", &m, 128);
        bytesLine(f, "smem", o.data(), o.size());
    }
    // The store: a 40x12 u32 tensor of 0xAAAAAAAA, the box 16x8 at (32, 8).
    if (!*only || strcmp(only, "store_u32") == 0) {
        cuuint64_t dims[2] = {40, 12}, strides[1] = {160};
        cuuint32_t box[2] = {16, 8}, estr[2] = {1, 1};
        CUtensorMap m;
        cudaMemset(T, 0xAA, 40 * 12 * 4);
        CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, T, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        std::vector<unsigned char> in(512);
        for (int i = 0; i < 512; i++) in[i] = (unsigned char)(i * 5 + 1);
        unsigned char *I = dev<unsigned char>(512);
        cudaMemcpy(I, in.data(), 512, cudaMemcpyHostToDevice);
        if (r == CUDA_SUCCESS) {
            tmaStore<<<1, 128>>>(m, 32, 8, I, 512);
            if (finish("tmaStore")) {
                std::vector<unsigned char> o = get(T, 40 * 12 * 4);
                fprintf(f, "store_u32 rank 2 esize 4 dims 40 12 coords 32 8 bytes 512\n");
                bytesLine(f, "map", &m, 128);
                bytesLine(f, "tensor", o.data(), o.size());
            }
        }
    }
    fclose(f);
}

static void recForms() {
    FILE *f = openOut("forms.txt");
    unsigned *O = dev<unsigned>(8 * 64);
    cgCluster<<<8, 64>>>(O);
    if (finish("cgCluster")) {
        std::vector<unsigned> o = get(O, 8 * 64);
        line(f, "cgCluster", o.data(), o.size());
    }
    int *H = dev<int>(256);
    heap<<<4, 64>>>(H);
    if (finish("heap")) {
        std::vector<int> o = get(H, 256);
        line(f, "heap", o.data(), o.size());
    }
    heapRead<<<1, 1>>>(H);
    if (finish("heapRead")) {
        std::vector<int> o = get(H, 1);
        line(f, "heapRead", o.data(), 1);
    }
    const int n = 256;
    std::vector<int> a(n);
    for (int i = 0; i < n; i++) a[i] = (i * 37 + 11) % 29;
    int *A = dev<int>(n), *F = dev<int>(n);
    cudaMemcpy(A, a.data(), n * 4, cudaMemcpyHostToDevice);
    funcPtr<<<n / 64, 64>>>(A, F, n);
    if (finish("funcPtr")) {
        std::vector<int> o = get(F, n);
        line(f, "funcPtr", o.data(), o.size());
    }
    std::vector<unsigned> x(n), y(n);
    lcgState = 777;
    for (int i = 0; i < n; i++) x[i] = lcg(), y[i] = lcg();
    unsigned *X = dev<unsigned>(n), *Y = dev<unsigned>(n), *S = dev<unsigned>(n * NSIMD);
    cudaMemcpy(X, x.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(Y, y.data(), n * 4, cudaMemcpyHostToDevice);
    simd<<<n / 64, 64>>>(X, Y, S, n);
    if (finish("simd")) {
        std::vector<unsigned> o = get(S, n * NSIMD);
        line(f, "simd", o.data(), o.size());
    }
    fclose(f);
}

static void recCDP() {
    FILE *f = openOut("cdp.txt");
    int *O = dev<int>(1024);
    cdpTree<<<2, 32>>>(O, 0, 3);
    if (finish("cdpTree")) {
        std::vector<int> o = get(O, 1024);
        line(f, "tree", o.data(), o.size());
    }
    std::vector<int> x(32);
    for (int i = 0; i < 32; i++) x[i] = i;
    int *X = dev<int>(32), *Y = dev<int>(32), *St = dev<int>(32);
    cudaMemcpy(X, x.data(), 128, cudaMemcpyHostToDevice);
    cdpStreams<<<1, 1>>>(X, Y, St);
    if (finish("cdpStreams")) {
        std::vector<int> a = get(X, 32), b = get(Y, 32), s = get(St, 32);
        line(f, "streams_x", a.data(), 32);
        line(f, "streams_y", b.data(), 32);
        line(f, "streams_status", s.data(), 32);
    }
    fclose(f);
}

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : ".";
    cudaFree(0);
    const char *only = argc > 2 ? argv[2] : "";
    if (!*only || strstr(only, "intops")) recIntops();
    if (!*only || strstr(only, "mbarrier")) recMbarrier();
    if (!*only || strstr(only, "forms")) recForms();
    if (!*only || strstr(only, "cdp")) recCDP();
    if (!*only || strstr(only, "tma")) recTMA(argc > 3 ? argv[3] : "");
    if (!*only || strstr(only, "cluster")) recCluster();
    printf("done\n");
    return 0;
}
