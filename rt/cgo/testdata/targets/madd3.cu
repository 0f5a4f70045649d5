// Kernels of the pertarget example, in the style of a micromagnetics code
// base: extern "C" kernels over the three components of a vector field,
// each stored as its own array, shipped as one PTX file per target
// (madd3_50.ptx, madd3_70.ptx, madd3_80.ptx).

// madd3: dst = src1·fac1 + src2·fac2, componentwise.
extern "C" __global__ void madd3(float *dstx, float *dsty, float *dstz, const float *src1x, const float *src1y,
                                 const float *src1z, float fac1, const float *src2x, const float *src2y,
                                 const float *src2z, float fac2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    dstx[i] = src1x[i] * fac1 + src2x[i] * fac2;
    dsty[i] = src1y[i] * fac1 + src2y[i] * fac2;
    dstz[i] = src1z[i] * fac1 + src2z[i] * fac2;
  }
}

// normalize scales each vector to unit length (zero vectors stay zero).
extern "C" __global__ void normalize(float *vx, float *vy, float *vz, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = vx[i], y = vy[i], z = vz[i];
    float l = sqrtf(x * x + y * y + z * z);
    float s = l == 0.f ? 0.f : 1.f / l;
    vx[i] = x * s;
    vy[i] = y * s;
    vz[i] = z * s;
  }
}
