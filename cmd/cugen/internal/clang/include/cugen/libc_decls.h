// cugen/libc_decls.h: the C library functions device code may call, declared
// for the device before the host's headers declare them for the host.
#ifndef CUGEN_LIBC_DECLS_H
#define CUGEN_LIBC_DECLS_H
#pragma clang system_header

// assert() in device code: glibc's assert calls __assert_fail, which on the
// device becomes PTX's __assertfail.
extern "C" __device__ void __assertfail(const char *, const char *, unsigned, const char *, unsigned long);
static __device__ __inline__ void __assert_fail(const char *msg, const char *file, unsigned line, const char *fn) {
  __assertfail(msg, file, line, fn, 1);
}

static __device__ __inline__ void *memcpy(void *d, const void *s, unsigned long n) { return __builtin_memcpy(d, s, n); }
static __device__ __inline__ void *memset(void *d, int c, unsigned long n) { return __builtin_memset(d, c, n); }

#endif
