// Texture and surface object parameters, for cugen's typing of the
// handles: a mangled name says unsigned long long ("y") for both, and
// only the source (-src) tells them apart from a number.
__global__ void handles(cudaTextureObject_t tex, cudaSurfaceObject_t surf, unsigned long long n,
                        unsigned long long *out) {
  out[0] = tex;
  out[1] = surf;
  out[2] = n;
}

extern "C" __global__ void handlesC(cudaTextureObject_t tex, cudaSurfaceObject_t surf, unsigned long long *out) {
  out[0] = tex + surf;
}
