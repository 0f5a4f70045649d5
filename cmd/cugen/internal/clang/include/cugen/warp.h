// cugen/warp.h: warp-level primitives: shuffles for every type (64-bit
// values as two 32-bit shuffles, like CUDA's), votes, redux and match.
#ifndef CUGEN_WARP_H
#define CUGEN_WARP_H
#pragma clang system_header

#define CUGEN_WI static __device__ __inline__ __attribute__((always_inline))

// The c operand of shfl.sync: the segment mask for width lanes and the
// clamp lane.
#define CUGEN_SHFL_C(w) ((32 - (w)) << 8 | 0x1f)
#define CUGEN_SHFL_UPC(w) ((32 - (w)) << 8)

#define CUGEN_SHFL32(T, CAST, BACK, suf)                                                                               \
  CUGEN_WI T __shfl_sync(unsigned int m, T v, int lane, int w = 32) {                                                  \
    return BACK(__nvvm_shfl_sync_idx_##suf(m, CAST(v), lane, CUGEN_SHFL_C(w)));                                        \
  }                                                                                                                    \
  CUGEN_WI T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = 32) {                                         \
    return BACK(__nvvm_shfl_sync_up_##suf(m, CAST(v), d, CUGEN_SHFL_UPC(w)));                                          \
  }                                                                                                                    \
  CUGEN_WI T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = 32) {                                       \
    return BACK(__nvvm_shfl_sync_down_##suf(m, CAST(v), d, CUGEN_SHFL_C(w)));                                          \
  }                                                                                                                    \
  CUGEN_WI T __shfl_xor_sync(unsigned int m, T v, int lm, int w = 32) {                                                \
    return BACK(__nvvm_shfl_sync_bfly_##suf(m, CAST(v), lm, CUGEN_SHFL_C(w)));                                         \
  }
#define CUGEN_ID(x) (x)
#define CUGEN_TOI(x) ((int)(x))
CUGEN_SHFL32(float, CUGEN_ID, CUGEN_ID, f32)
CUGEN_SHFL32(int, CUGEN_ID, CUGEN_ID, i32)
CUGEN_SHFL32(unsigned int, CUGEN_TOI, (unsigned int), i32)
#undef CUGEN_SHFL32

// 64-bit types as two 32-bit halves.
#define CUGEN_SHFL64(T)                                                                                                \
  CUGEN_WI T __shfl_sync(unsigned int m, T v, int lane, int w = 32) {                                                  \
    unsigned long long b = __builtin_bit_cast(unsigned long long, v);                                                  \
    int lo = __shfl_sync(m, (int)b, lane, w), hi = __shfl_sync(m, (int)(b >> 32), lane, w);                            \
    return __builtin_bit_cast(T, (unsigned long long)(unsigned)lo | (unsigned long long)(unsigned)hi << 32);           \
  }                                                                                                                    \
  CUGEN_WI T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = 32) {                                         \
    unsigned long long b = __builtin_bit_cast(unsigned long long, v);                                                  \
    int lo = __shfl_up_sync(m, (int)b, d, w), hi = __shfl_up_sync(m, (int)(b >> 32), d, w);                            \
    return __builtin_bit_cast(T, (unsigned long long)(unsigned)lo | (unsigned long long)(unsigned)hi << 32);           \
  }                                                                                                                    \
  CUGEN_WI T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = 32) {                                       \
    unsigned long long b = __builtin_bit_cast(unsigned long long, v);                                                  \
    int lo = __shfl_down_sync(m, (int)b, d, w), hi = __shfl_down_sync(m, (int)(b >> 32), d, w);                        \
    return __builtin_bit_cast(T, (unsigned long long)(unsigned)lo | (unsigned long long)(unsigned)hi << 32);           \
  }                                                                                                                    \
  CUGEN_WI T __shfl_xor_sync(unsigned int m, T v, int lm, int w = 32) {                                                \
    unsigned long long b = __builtin_bit_cast(unsigned long long, v);                                                  \
    int lo = __shfl_xor_sync(m, (int)b, lm, w), hi = __shfl_xor_sync(m, (int)(b >> 32), lm, w);                        \
    return __builtin_bit_cast(T, (unsigned long long)(unsigned)lo | (unsigned long long)(unsigned)hi << 32);           \
  }
CUGEN_SHFL64(long long)
CUGEN_SHFL64(unsigned long long)
CUGEN_SHFL64(double)
#if __SIZEOF_LONG__ == 8
CUGEN_SHFL64(long)
CUGEN_SHFL64(unsigned long)
#endif
#undef CUGEN_SHFL64

CUGEN_WI unsigned int __ballot_sync(unsigned int m, int p) { return __nvvm_vote_ballot_sync(m, p); }
CUGEN_WI int __any_sync(unsigned int m, int p) { return __nvvm_vote_any_sync(m, p); }
CUGEN_WI int __all_sync(unsigned int m, int p) { return __nvvm_vote_all_sync(m, p); }
CUGEN_WI int __uni_sync(unsigned int m, int p) { return __nvvm_vote_uni_sync(m, p); }

// __reduce_*_sync: redux.sync on sm_80 and later, else a butterfly over
// the lanes of the mask.
namespace __cugen {
template <class T, class F> CUGEN_WI T reduce_lanes(unsigned int m, T v, F f) {
  T acc = v;
  unsigned lane = __nvvm_read_ptx_sreg_laneid();
  for (int l = 0; l < 32; l++) {
    if (!((m >> l) & 1)) continue;
    T o = (T)__shfl_sync(m, v, l);
    if ((unsigned)l != lane) acc = f(acc, o);
  }
  return acc;
}
} // namespace __cugen

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUGEN_REDUX(NAME, T, op, c)                                                                                    \
  CUGEN_WI T NAME(unsigned int m, T v) {                                                                               \
    T r;                                                                                                               \
    asm volatile("redux.sync." op " %0, %1, %2;" : "=" c(r) : c(v), "r"(m));                                           \
    return r;                                                                                                          \
  }
CUGEN_REDUX(__reduce_add_sync, unsigned int, "add.u32", "r")
CUGEN_REDUX(__reduce_add_sync, int, "add.s32", "r")
CUGEN_REDUX(__reduce_min_sync, unsigned int, "min.u32", "r")
CUGEN_REDUX(__reduce_min_sync, int, "min.s32", "r")
CUGEN_REDUX(__reduce_max_sync, unsigned int, "max.u32", "r")
CUGEN_REDUX(__reduce_max_sync, int, "max.s32", "r")
CUGEN_REDUX(__reduce_and_sync, unsigned int, "and.b32", "r")
CUGEN_REDUX(__reduce_or_sync, unsigned int, "or.b32", "r")
CUGEN_REDUX(__reduce_xor_sync, unsigned int, "xor.b32", "r")
#undef CUGEN_REDUX
#else
#define CUGEN_REDUX(NAME, T, expr)                                                                                     \
  CUGEN_WI T NAME(unsigned int m, T v) {                                                                               \
    return __cugen::reduce_lanes(m, v, [](T a, T b) { return expr; });                                                 \
  }
CUGEN_REDUX(__reduce_add_sync, unsigned int, a + b)
CUGEN_REDUX(__reduce_add_sync, int, (int)((unsigned)a + (unsigned)b))
CUGEN_REDUX(__reduce_min_sync, unsigned int, a < b ? a : b)
CUGEN_REDUX(__reduce_min_sync, int, a < b ? a : b)
CUGEN_REDUX(__reduce_max_sync, unsigned int, a > b ? a : b)
CUGEN_REDUX(__reduce_max_sync, int, a > b ? a : b)
CUGEN_REDUX(__reduce_and_sync, unsigned int, a &b)
CUGEN_REDUX(__reduce_or_sync, unsigned int, a | b)
CUGEN_REDUX(__reduce_xor_sync, unsigned int, a ^ b)
#undef CUGEN_REDUX
#endif

#define CUGEN_MATCH(T, bits)                                                                                           \
  CUGEN_WI unsigned int __match_any_sync(unsigned int m, T v) {                                                        \
    return __nvvm_match_any_sync_i##bits(m, __builtin_bit_cast(__cugen::bits_of<bits / 8>::type, v));                 \
  }                                                                                                                    \
  CUGEN_WI unsigned int __match_all_sync(unsigned int m, T v, int *pred) {                                             \
    return __nvvm_match_all_sync_i##bits##p(m, __builtin_bit_cast(__cugen::bits_of<bits / 8>::type, v), pred);        \
  }
CUGEN_MATCH(unsigned int, 32)
CUGEN_MATCH(int, 32)
CUGEN_MATCH(float, 32)
CUGEN_MATCH(unsigned long long, 64)
CUGEN_MATCH(long long, 64)
CUGEN_MATCH(double, 64)
#if __SIZEOF_LONG__ == 8
CUGEN_MATCH(long, 64)
CUGEN_MATCH(unsigned long, 64)
#endif
#undef CUGEN_MATCH

#endif
