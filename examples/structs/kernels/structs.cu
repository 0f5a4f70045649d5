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

// A struct cugen declares from this source (-src): a Go struct of the same
// members at the same offsets, padding where C++ pads. The kernel reads the
// copy passed by value member by member and stores it whole, and reads the
// particles in device memory through a typed pointer.
struct Span { int lo, hi; };
struct Particle {
  float3 pos;      // offset 0
  char kind;       // 12
  double mass;     // 16
  Span span;       // 24
  short tags[3];   // 32
  bool alive;      // 38
  const float *w;  // 40
};

__global__ void weigh(Particle p, const Particle *many, int n, Particle *copy, double *out) {
  copy[0] = p;
  double s = p.pos.x + 2 * p.pos.y + 3 * p.pos.z + p.kind + p.mass + p.span.lo - p.span.hi + p.tags[0] + p.tags[1] + p.tags[2] + p.alive + p.w[0];
  for (int i = 0; i < n; i++) s += many[i].mass * many[i].alive;
  out[0] = s;
}
