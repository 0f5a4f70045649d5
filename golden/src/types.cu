// Every parameter type a user writes, for cugen's type-mapping golden tests.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Builtin scalars.
__global__ void scalars(bool b, char c, signed char sc, unsigned char uc, short s, unsigned short us, int i,
                        unsigned u, long l, unsigned long ul, long long ll, unsigned long long ull, float f,
                        double d, char16_t c16, char32_t c32, wchar_t wc, int *out) {
  out[0] = b + c + sc + uc + s + us + i + u + (int)l + (int)ul + (int)ll + (int)ull + (int)f + (int)d + c16 + c32 + wc;
}
__global__ void wide(__int128 v, unsigned __int128 w, __int128 *out) { out[0] = v + (__int128)w; }

// Pointers: const, volatile, restrict, pointer to pointer, void.
__global__ void pointers(const float *__restrict__ in, volatile int *flag, float **table, void *raw,
                         const void *craw, float *__restrict__ out) {
  out[0] = in[0] + table[0][0] + *flag + (raw != craw);
}

// Templates with type and non-type arguments.
template <int N, typename T>
__global__ void fixedSize(T *x) { x[N] = T(N); }
template __global__ void fixedSize<4, float>(float *);
template __global__ void fixedSize<-1, double>(double *);
template <bool B>
__global__ void flagged(int *x) { x[0] = B; }
template __global__ void flagged<true>(int *);

// Class templates and structs by value.
template <typename T>
struct Pair { T first, second; };
struct Params { float scale; int count; double offset; };
union Bits { float f; unsigned u; };
__global__ void pairs(Pair<float> p, Pair<double> q, Params prm, Bits bits, Params *many, float *out) {
  out[0] = p.first + p.second + q.first + prm.scale * prm.count + bits.f + many[1].offset;
}

// Overloads.
__global__ void over(int *x) { x[0] = 1; }
__global__ void over(float *x) { x[0] = 2; }
__global__ void over(float *x, int n) { x[n] = 3; }

// Namespaces: nested and anonymous.
namespace outer { namespace inner {
__global__ void deep(int *x) { x[0] = 4; }
}}
namespace {
__global__ void hidden(int *x) { x[0] = 5; }
}
void touchHidden() { hidden<<<1, 1>>>(nullptr); }

// Enums.
enum Color { Red, Green, Blue };
enum class Mode : unsigned char { Fast = 1, Exact = 2 };
enum class Wide : long long { Big = 1LL << 40 };
__global__ void enums(Color c, Mode m, Wide w, int *out) { out[0] = c + (int)m + (int)((long long)w >> 40); }

// CUDA vector and half types.
__global__ void vectors(char1 a1, char2 a2, char3 a3, char4 a4, uchar4 ua4, short2 s2, int2 i2, int3 i3, int4 i4,
                        uint3 u3, float2 f2, float3 f3, float4 f4, double2 d2, longlong2 ll2, dim3 dim, float *out) {
  out[0] = a1.x + a2.y + a3.z + a4.w + ua4.x + s2.y + i2.x + i3.z + i4.w + u3.y + f2.x + f3.z + f4.w + d2.y + ll2.x + dim.z;
}
__global__ void halves(__half h, __half2 h2, __nv_bfloat16 b, __nv_bfloat162 b2, __half *hp, float *out) {
  out[0] = __half2float(h) + __low2float(h2) + __bfloat162float(b) + __low2float(b2) + __half2float(hp[0]);
}

// extern "C": types only from the .cu source (cugen -src).
extern "C" __global__ void cvecAdd(const float *a, const float *b, float *c, int n, Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] * p.scale;
}
