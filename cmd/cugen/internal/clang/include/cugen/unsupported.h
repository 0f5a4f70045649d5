// cugen/unsupported.h: CUDA device functions cugen's headers do not
// provide, declared so that a use fails with clang's "unavailable" error at
// its file and line, naming the construct and the way out, rather than with
// an undeclared identifier (and a typo correction's stray suggestion, such
// as the __ud2 builtin for __vadd2). nvcc-built code can use all of them:
// compile the file with -compiler nvcc, or give cugen nvcc's .ptx or .fatbin.
#ifndef CUGEN_UNSUPPORTED_H
#define CUGEN_UNSUPPORTED_H
#pragma clang system_header

#define CUGEN_UNAVAILABLE(what)                                                                                        \
  __attribute__((unavailable(what " is not in cugen's clang route; compile this file with -compiler nvcc")))

// The SIMD video intrinsics (two 16-bit or four 8-bit lanes per word) and
// Hopper's DPX intrinsics. Any arguments (a variadic template: device code
// has no C varargs): the use is the error.
#define CUGEN_NO_SIMD(name)                                                                                            \
  template <class... A> static __device__ unsigned int name(A...) CUGEN_UNAVAILABLE("the SIMD intrinsic " #name);
#define CUGEN_NO_SIMD24(name) CUGEN_NO_SIMD(name##2) CUGEN_NO_SIMD(name##4)
CUGEN_NO_SIMD24(__vabs)
CUGEN_NO_SIMD24(__vabsss)
CUGEN_NO_SIMD24(__vabsdiffs)
CUGEN_NO_SIMD24(__vabsdiffu)
CUGEN_NO_SIMD24(__vadd)
CUGEN_NO_SIMD24(__vaddss)
CUGEN_NO_SIMD24(__vaddus)
CUGEN_NO_SIMD24(__vavgs)
CUGEN_NO_SIMD24(__vavgu)
CUGEN_NO_SIMD24(__vcmpeq)
CUGEN_NO_SIMD24(__vcmpges)
CUGEN_NO_SIMD24(__vcmpgeu)
CUGEN_NO_SIMD24(__vcmpgts)
CUGEN_NO_SIMD24(__vcmpgtu)
CUGEN_NO_SIMD24(__vcmples)
CUGEN_NO_SIMD24(__vcmpleu)
CUGEN_NO_SIMD24(__vcmplts)
CUGEN_NO_SIMD24(__vcmpltu)
CUGEN_NO_SIMD24(__vcmpne)
CUGEN_NO_SIMD24(__vhaddu)
CUGEN_NO_SIMD24(__vmaxs)
CUGEN_NO_SIMD24(__vmaxu)
CUGEN_NO_SIMD24(__vmins)
CUGEN_NO_SIMD24(__vminu)
CUGEN_NO_SIMD24(__vneg)
CUGEN_NO_SIMD24(__vnegss)
CUGEN_NO_SIMD24(__vsads)
CUGEN_NO_SIMD24(__vsadu)
CUGEN_NO_SIMD24(__vseteq)
CUGEN_NO_SIMD24(__vsetges)
CUGEN_NO_SIMD24(__vsetgeu)
CUGEN_NO_SIMD24(__vsetgts)
CUGEN_NO_SIMD24(__vsetgtu)
CUGEN_NO_SIMD24(__vsetles)
CUGEN_NO_SIMD24(__vsetleu)
CUGEN_NO_SIMD24(__vsetlts)
CUGEN_NO_SIMD24(__vsetltu)
CUGEN_NO_SIMD24(__vsetne)
CUGEN_NO_SIMD24(__vsub)
CUGEN_NO_SIMD24(__vsubss)
CUGEN_NO_SIMD24(__vsubus)
#define CUGEN_NO_DPX(name) CUGEN_NO_SIMD(name##_s32) CUGEN_NO_SIMD(name##_u32) CUGEN_NO_SIMD(name##_s16x2) CUGEN_NO_SIMD(name##_u16x2)
CUGEN_NO_DPX(__vimax3)
CUGEN_NO_DPX(__vimin3)
CUGEN_NO_DPX(__viaddmax)
CUGEN_NO_DPX(__viaddmin)
CUGEN_NO_DPX(__vibmax)
CUGEN_NO_DPX(__vibmin)
CUGEN_NO_SIMD(__vimax_s32_relu)
CUGEN_NO_SIMD(__vimax_s16x2_relu)
CUGEN_NO_SIMD(__vimin_s32_relu)
CUGEN_NO_SIMD(__vimin_s16x2_relu)
CUGEN_NO_SIMD(__vimax3_s32_relu)
CUGEN_NO_SIMD(__vimax3_s16x2_relu)
CUGEN_NO_SIMD(__vimin3_s32_relu)
CUGEN_NO_SIMD(__vimin3_s16x2_relu)
CUGEN_NO_SIMD(__viaddmax_s32_relu)
CUGEN_NO_SIMD(__viaddmax_s16x2_relu)
CUGEN_NO_SIMD(__viaddmin_s32_relu)
CUGEN_NO_SIMD(__viaddmin_s16x2_relu)
#undef CUGEN_NO_DPX
#undef CUGEN_NO_SIMD24
#undef CUGEN_NO_SIMD

// The Bessel functions: device overloads beside the host's (glibc declares
// j0, y0, ... in <math.h>), so that device code reaches the error.
#define CUGEN_NO_BESSEL(name)                                                                                          \
  template <class... A> static __device__ double name(A...) CUGEN_UNAVAILABLE("the Bessel function " #name);          \
  template <class... A> static __device__ float name##f(A...) CUGEN_UNAVAILABLE("the Bessel function " #name "f");
CUGEN_NO_BESSEL(j0)
CUGEN_NO_BESSEL(j1)
CUGEN_NO_BESSEL(jn)
CUGEN_NO_BESSEL(y0)
CUGEN_NO_BESSEL(y1)
CUGEN_NO_BESSEL(yn)
CUGEN_NO_BESSEL(cyl_bessel_i0)
CUGEN_NO_BESSEL(cyl_bessel_i1)
#undef CUGEN_NO_BESSEL

// Textures and surfaces: the object types are 64-bit handles, as a kernel's
// parameter list needs them; the fetches and stores are not there.
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#define CUGEN_NO_TEX(name)                                                                                             \
  template <class T = void, class... A> static __device__ T name(A...) CUGEN_UNAVAILABLE("the texture function " #name);
CUGEN_NO_TEX(tex1Dfetch)
CUGEN_NO_TEX(tex1D)
CUGEN_NO_TEX(tex2D)
CUGEN_NO_TEX(tex3D)
CUGEN_NO_TEX(tex1DLayered)
CUGEN_NO_TEX(tex2DLayered)
CUGEN_NO_TEX(texCubemap)
CUGEN_NO_TEX(texCubemapLayered)
CUGEN_NO_TEX(tex2Dgather)
CUGEN_NO_TEX(tex1DLod)
CUGEN_NO_TEX(tex2DLod)
CUGEN_NO_TEX(tex3DLod)
CUGEN_NO_TEX(tex1DGrad)
CUGEN_NO_TEX(tex2DGrad)
CUGEN_NO_TEX(tex3DGrad)
#undef CUGEN_NO_TEX
#define CUGEN_NO_SURF(name)                                                                                            \
  template <class T = void, class... A> static __device__ T name(A...) CUGEN_UNAVAILABLE("the surface function " #name);
CUGEN_NO_SURF(surf1Dread)
CUGEN_NO_SURF(surf2Dread)
CUGEN_NO_SURF(surf3Dread)
CUGEN_NO_SURF(surf1DLayeredread)
CUGEN_NO_SURF(surf2DLayeredread)
CUGEN_NO_SURF(surf1Dwrite)
CUGEN_NO_SURF(surf2Dwrite)
CUGEN_NO_SURF(surf3Dwrite)
CUGEN_NO_SURF(surf1DLayeredwrite)
CUGEN_NO_SURF(surf2DLayeredwrite)
#undef CUGEN_NO_SURF

#endif
