// twice() as relocatable device code, the second half of TestLinkInputKinds'
// links (link_a.ptx calls it). make.sh compiles it into each input form the
// CUDA linker takes besides PTX.
extern "C" __device__ unsigned twice(unsigned x) { return 2u * x; }
