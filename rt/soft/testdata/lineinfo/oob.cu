// oob.cu: a kernel that writes one element past its buffer, and one with
// a shared-memory race, compiled with line information for rt/soft's tests.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

extern "C" __global__ void oob(float *out, int n) {
  int i = __nvvm_read_ptx_sreg_tid_x();
  if (i <= n) {
    out[i] = 2.0f * i;
  }
}

extern "C" __global__ void race(int *out) {
  __shared__ int s[64];
  int i = __nvvm_read_ptx_sreg_tid_x();
  s[i] = i;
  out[i] = s[(i + 32) % 64];
}
