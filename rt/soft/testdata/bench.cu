// Kernels of rt/soft's speed benchmarks (bench_test.go) that typical.cu lacks.
// bench_sm90.ptx is this file compiled by cugen's clang route:
//   cugen -compiler clang -gpu sm_90 -o /tmp/b/bench_cugen.go rt/soft/testdata/bench.cu
// softmax: one CTA of 256 threads per row of n floats.
__global__ void softmax(const float*x,float*y,int n){
  __shared__ float red[256];
  const float*r=x+(size_t)blockIdx.x*n;float*o=y+(size_t)blockIdx.x*n;
  int t=threadIdx.x;float m=-INFINITY;
  for(int i=t;i<n;i+=blockDim.x)m=fmaxf(m,r[i]);
  red[t]=m;__syncthreads();
  for(int k=blockDim.x/2;k>0;k>>=1){if(t<k)red[t]=fmaxf(red[t],red[t+k]);__syncthreads();}
  m=red[0];__syncthreads();
  float s=0;
  for(int i=t;i<n;i+=blockDim.x)s+=expf(r[i]-m);
  red[t]=s;__syncthreads();
  for(int k=blockDim.x/2;k>0;k>>=1){if(t<k)red[t]+=red[t+k];__syncthreads();}
  float inv=1.0f/red[0];
  for(int i=t;i<n;i+=blockDim.x)o[i]=expf(r[i]-m)*inv;
}
// bred: block sum with warp shuffles, one partial per warp in shared memory.
__global__ void bred(const float*in,float*out,int n){
  __shared__ float w[32];
  int i=blockIdx.x*blockDim.x+threadIdx.x;float v=i<n?in[i]:0.f;
  for(int o=16;o>0;o>>=1)v+=__shfl_down_sync(~0u,v,o);
  if((threadIdx.x&31)==0)w[threadIdx.x>>5]=v;
  __syncthreads();
  if(threadIdx.x<32){v=threadIdx.x<(blockDim.x>>5)?w[threadIdx.x]:0.f;
    for(int o=16;o>0;o>>=1)v+=__shfl_down_sync(~0u,v,o);
    if(threadIdx.x==0)out[blockIdx.x]=v;}
}
// stencil7: 3-D 7-point stencil on an n³ grid, interior points only.
__global__ void stencil7(const float*a,float*b,int n){
  int x=blockIdx.x*blockDim.x+threadIdx.x,y=blockIdx.y*blockDim.y+threadIdx.y,z=blockIdx.z;
  if(x<1||y<1||z<1||x>=n-1||y>=n-1||z>=n-1)return;
  size_t i=((size_t)z*n+y)*n+x,p=(size_t)n*n;
  b[i]=0.4f*a[i]+0.1f*(a[i-1]+a[i+1]+a[i-n]+a[i+n]+a[i-p]+a[i+p]);
}
