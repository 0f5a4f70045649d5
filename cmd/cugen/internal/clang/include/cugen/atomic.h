// cugen/atomic.h: CUDA's atomic functions for every type CUDA has them, in
// the device (gpu) scope and as the _block (cta) and _system (sys) variants.
// The ones with a clang builtin use it (so that the optimizer sees them);
// the rest are PTX atom instructions.
#ifndef CUGEN_ATOMIC_H
#define CUGEN_ATOMIC_H
#pragma clang system_header

#define CUGEN_AT static __device__ __inline__ __attribute__((always_inline))

// Scoped atomics need sm_60; before, the _block and _system forms are the
// device-scope ones (which are stronger).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
#define CUGEN_CTA "atom."
#define CUGEN_SYS "atom."
#else
#define CUGEN_CTA "atom.cta."
#define CUGEN_SYS "atom.sys."
#endif

// One PTX atom per scope: NAME (gpu), NAME_block (cta), NAME_system (sys).
#define CUGEN_ATOM2(NAME, T, op, ty, c)                                                                                \
  CUGEN_AT T NAME(T *p, T v) {                                                                                         \
    T r;                                                                                                               \
    asm volatile("atom." op "." ty " %0, [%1], %2;" : "=" c(r) : "l"(p), c(v) : "memory");                            \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_AT T NAME##_block(T *p, T v) {                                                                                 \
    T r;                                                                                                               \
    asm volatile(CUGEN_CTA op "." ty " %0, [%1], %2;" : "=" c(r) : "l"(p), c(v) : "memory");                        \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_AT T NAME##_system(T *p, T v) {                                                                                \
    T r;                                                                                                               \
    asm volatile(CUGEN_SYS op "." ty " %0, [%1], %2;" : "=" c(r) : "l"(p), c(v) : "memory");                        \
    return r;                                                                                                          \
  }
#define CUGEN_ATOM3(NAME, T, op, ty, c)                                                                                \
  CUGEN_AT T NAME(T *p, T cmp, T v) {                                                                                  \
    T r;                                                                                                               \
    asm volatile("atom." op "." ty " %0, [%1], %2, %3;" : "=" c(r) : "l"(p), c(cmp), c(v) : "memory");                \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_AT T NAME##_block(T *p, T cmp, T v) {                                                                          \
    T r;                                                                                                               \
    asm volatile(CUGEN_CTA op "." ty " %0, [%1], %2, %3;" : "=" c(r) : "l"(p), c(cmp), c(v) : "memory");            \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_AT T NAME##_system(T *p, T cmp, T v) {                                                                         \
    T r;                                                                                                               \
    asm volatile(CUGEN_SYS op "." ty " %0, [%1], %2, %3;" : "=" c(r) : "l"(p), c(cmp), c(v) : "memory");            \
    return r;                                                                                                          \
  }

// atomicAdd on int, unsigned, unsigned long long, float and double in the
// gpu scope use clang's builtins, as before this header grew (the examples'
// committed PTX depends on it).
CUGEN_AT int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
CUGEN_AT unsigned int atomicAdd(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
CUGEN_AT unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
CUGEN_AT float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
CUGEN_AT double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
#else
CUGEN_AT double atomicAdd(double *p, double v) {
  unsigned long long *q = (unsigned long long *)p, old = *q, seen;
  do {
    seen = old;
    old = __nvvm_atom_cas_gen_ll((long long *)q, (long long)seen,
                                 (long long)__builtin_bit_cast(unsigned long long, __builtin_bit_cast(double, seen) + v));
  } while (seen != old);
  return __builtin_bit_cast(double, old);
}
#endif
CUGEN_AT int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }

#define CUGEN_BS(NAME, T, op, ty, c)                                                                                   \
  CUGEN_AT T NAME##_block(T *p, T v) {                                                                                 \
    T r;                                                                                                               \
    asm volatile(CUGEN_CTA op "." ty " %0, [%1], %2;" : "=" c(r) : "l"(p), c(v) : "memory");                        \
    return r;                                                                                                          \
  }                                                                                                                    \
  CUGEN_AT T NAME##_system(T *p, T v) {                                                                                \
    T r;                                                                                                               \
    asm volatile(CUGEN_SYS op "." ty " %0, [%1], %2;" : "=" c(r) : "l"(p), c(v) : "memory");                        \
    return r;                                                                                                          \
  }
CUGEN_BS(atomicAdd, int, "add", "s32", "r")
CUGEN_BS(atomicAdd, unsigned int, "add", "u32", "r")
CUGEN_BS(atomicAdd, unsigned long long, "add", "u64", "l")
CUGEN_BS(atomicAdd, float, "add", "f32", "f")
CUGEN_BS(atomicAdd, double, "add", "f64", "d")
CUGEN_BS(atomicMax, int, "max", "s32", "r")
#undef CUGEN_BS

CUGEN_AT int atomicSub(int *p, int v) { return atomicAdd(p, -v); }
CUGEN_AT unsigned int atomicSub(unsigned int *p, unsigned int v) { return atomicAdd(p, 0u - v); }
CUGEN_AT int atomicSub_block(int *p, int v) { return atomicAdd_block(p, -v); }
CUGEN_AT unsigned int atomicSub_block(unsigned int *p, unsigned int v) { return atomicAdd_block(p, 0u - v); }
CUGEN_AT int atomicSub_system(int *p, int v) { return atomicAdd_system(p, -v); }
CUGEN_AT unsigned int atomicSub_system(unsigned int *p, unsigned int v) { return atomicAdd_system(p, 0u - v); }

CUGEN_ATOM2(atomicExch, int, "exch", "b32", "r")
CUGEN_ATOM2(atomicExch, unsigned int, "exch", "b32", "r")
CUGEN_ATOM2(atomicExch, unsigned long long, "exch", "b64", "l")
CUGEN_ATOM2(atomicExch, float, "exch", "b32", "f")
CUGEN_ATOM2(atomicMax, unsigned int, "max", "u32", "r")
CUGEN_ATOM2(atomicMax, long long, "max", "s64", "l")
CUGEN_ATOM2(atomicMax, unsigned long long, "max", "u64", "l")
CUGEN_ATOM2(atomicMin, int, "min", "s32", "r")
CUGEN_ATOM2(atomicMin, unsigned int, "min", "u32", "r")
CUGEN_ATOM2(atomicMin, long long, "min", "s64", "l")
CUGEN_ATOM2(atomicMin, unsigned long long, "min", "u64", "l")
CUGEN_ATOM2(atomicInc, unsigned int, "inc", "u32", "r")
CUGEN_ATOM2(atomicDec, unsigned int, "dec", "u32", "r")
CUGEN_ATOM2(atomicAnd, int, "and", "b32", "r")
CUGEN_ATOM2(atomicAnd, unsigned int, "and", "b32", "r")
CUGEN_ATOM2(atomicAnd, unsigned long long, "and", "b64", "l")
CUGEN_ATOM2(atomicOr, int, "or", "b32", "r")
CUGEN_ATOM2(atomicOr, unsigned int, "or", "b32", "r")
CUGEN_ATOM2(atomicOr, unsigned long long, "or", "b64", "l")
CUGEN_ATOM2(atomicXor, int, "xor", "b32", "r")
CUGEN_ATOM2(atomicXor, unsigned int, "xor", "b32", "r")
CUGEN_ATOM2(atomicXor, unsigned long long, "xor", "b64", "l")
CUGEN_ATOM3(atomicCAS, int, "cas", "b32", "r")
CUGEN_ATOM3(atomicCAS, unsigned int, "cas", "b32", "r")
CUGEN_ATOM3(atomicCAS, unsigned long long, "cas", "b64", "l")
CUGEN_ATOM3(atomicCAS, unsigned short, "cas", "b16", "h")
#undef CUGEN_ATOM2
#undef CUGEN_ATOM3

#endif
