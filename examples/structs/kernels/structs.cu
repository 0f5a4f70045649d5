// Structs and CUDA vector types passed by value.

struct Params {
  float scale;
  int count;
  double offset;
};

__global__ void apply(Params p, float4 bias, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * p.scale + p.count + (float)p.offset + bias.x + 2 * bias.y + 3 * bias.z + 4 * bias.w;
}

__global__ void mix(int3 a, double2 d, char4 c, int *out) {
  out[0] = a.x + 10 * a.y + 100 * a.z;
  out[1] = (int)(d.x * 1000 + d.y);
  out[2] = c.x + c.y + c.z + c.w;
}
