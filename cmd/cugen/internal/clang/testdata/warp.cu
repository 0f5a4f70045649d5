// Warp-level functions and cooperative groups under the clang route; the
// Go test (clang_warp_test.go) computes every lane's expected value.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define OUT(v) o[(k++) * n + t] = (long long)(v)

// o[k*n + t]: thread t's k-th result; one block of n threads.
extern "C" __global__ void shuffles(const int *in, long long *o, int n) {
  int t = threadIdx.x, k = 0;
  int v = in[t];
  unsigned u = (unsigned)v * 3u;
  float f = (float)v * 0.5f;
  long long l = (long long)v << 33 | (unsigned)v;
  unsigned long long ul = (unsigned long long)l ^ 0xf0f0f0f000000000ull;
  double d = (double)v * 0.25;
  const unsigned all = 0xffffffffu;
  OUT(__shfl_sync(all, v, (t * 7 + 3) & 31));
  OUT(__shfl_up_sync(all, v, 3));
  OUT(__shfl_down_sync(all, v, 5));
  OUT(__shfl_xor_sync(all, v, 6));
  OUT(__shfl_sync(all, v, t * 3 + 1, 8));
  OUT(__shfl_up_sync(all, v, 2, 8));
  OUT(__shfl_down_sync(all, v, 3, 16));
  OUT(__shfl_xor_sync(all, v, 5, 8));
  OUT(__shfl_sync(all, u, 9));
  OUT(__shfl_down_sync(all, f, 1) * 2);
  OUT(__shfl_xor_sync(all, l, 1));
  OUT(__shfl_up_sync(all, ul, 1));
  OUT(__shfl_sync(all, d, 30) * 4);
  OUT(__shfl_down_sync(all, d, 4, 16) * 4);
}

extern "C" __global__ void votes(const int *in, long long *o, int n) {
  int t = threadIdx.x, k = 0, lane = t & 31;
  int v = in[t];
  const unsigned all = 0xffffffffu;
  OUT(__ballot_sync(all, v % 3 == 0));
  OUT(__any_sync(all, v > 90));
  OUT(__all_sync(all, v >= 0));
  OUT(__uni_sync(all, v >= 0));
  OUT(__uni_sync(all, v % 2));
  unsigned act = 0;
  if (lane % 3 == 0) act = __activemask();
  OUT(act);
  OUT(__reduce_add_sync(all, (unsigned)v));
  OUT(__reduce_min_sync(all, v - 50));
  OUT(__reduce_max_sync(all, (unsigned)v * 7u % 64));
  OUT(__reduce_and_sync(all, (unsigned)v | 0xf0u));
  OUT(__reduce_or_sync(all, 1u << (v & 7)));
  OUT(__reduce_xor_sync(all, (unsigned)v));
  long long part = -1;
  if (lane % 2 == 0) part = __reduce_add_sync(0x55555555u, v);
  OUT(part);
  OUT(__match_any_sync(all, v % 4));
  int pred = 0;
  unsigned m = __match_all_sync(all, v / 1000, &pred);
  OUT(m);
  OUT(pred);
  OUT(__match_any_sync(all, (long long)(v % 2) << 40));
  __syncwarp();
}

struct SumMax {
  float sum;
  int max;
  double pad;
};
__device__ SumMax sum_max(SumMax a, SumMax b) { return {a.sum + b.sum, a.max > b.max ? a.max : b.max, 0.0}; }

extern "C" __global__ void groups(const int *in, long long *o, int n) {
  int t = threadIdx.x, k = 0;
  int v = in[t];
  cg::thread_block b = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(b);
  auto t4 = cg::tiled_partition<4>(b);
  OUT(b.thread_rank());
  OUT(b.size());
  OUT(tile.thread_rank());
  OUT(tile.meta_group_rank());
  OUT(tile.meta_group_size());
  OUT(cg::reduce(tile, v, cg::plus<int>()));
  OUT(cg::reduce(tile, v, cg::less<int>()));
  OUT(cg::reduce(tile, v, cg::greater<int>()));
  OUT(cg::reduce(t4, (unsigned)v, cg::bit_xor<unsigned>()));
  OUT(cg::reduce(tile, (double)v * 0.5, cg::plus<double>()) * 2);
  OUT(tile.shfl(v, 5));
  OUT(tile.shfl_down(v, 2));
  OUT(tile.shfl_up(v, 1));
  OUT(tile.shfl_xor(v, 3));
  OUT(tile.ballot(v % 2));
  OUT(tile.any(v == 7));
  OUT(tile.all(v < 1000));
  OUT(cg::inclusive_scan(tile, v));
  OUT(cg::exclusive_scan(tile, v));
  OUT(cg::inclusive_scan(t4, v, cg::greater<int>()));
  tile.sync();
  b.sync();
  long long cs = -1, cr = -1, csum = -1, cshfl = -1;
  if (v % 3 != 0) {
    cg::coalesced_group c = cg::coalesced_threads();
    cs = c.size();
    cr = c.thread_rank();
    csum = cg::reduce(c, v, cg::plus<int>());
    cshfl = c.shfl(v, 0);
  }
  OUT(cs);
  OUT(cr);
  OUT(csum);
  OUT(cshfl);
  cg::thread_group g8 = cg::tiled_partition(b, 8);
  OUT(g8.thread_rank());
  OUT(g8.size());
  cg::grid_group grid = cg::this_grid();
  OUT(grid.thread_rank());
  OUT(grid.size());
  SumMax sm = cg::reduce(tile, SumMax{(float)v, v, 0.0}, sum_max);
  OUT(sm.sum);
  OUT(sm.max);
  OUT(tile.shfl(SumMax{(float)v, v, 0.0}, 2).max);
  cg::sync(tile);
}
