// cooperative_groups.h: the common subset of CUDA's cooperative groups for
// the clang route: thread blocks, tiles of 1 to 32 threads with their
// shuffles, votes and matches, coalesced groups, the grid's indices, and
// cg::reduce / inclusive_scan / exclusive_scan with plus, less, greater and
// the bitwise operators. Grid-wide sync (which needs a cooperative launch)
// and asynchronous copies are not here.
#ifndef CUGEN_COOPERATIVE_GROUPS_H
#define CUGEN_COOPERATIVE_GROUPS_H
#pragma clang system_header
#include "cugen_clang.h"

#define CUGEN_CG static __device__ __inline__ __attribute__((always_inline))
#define CUGEN_CGM __device__ __inline__ __attribute__((always_inline))

namespace cooperative_groups {
namespace __cugen_cg {
CUGEN_CG unsigned laneid() { return __nvvm_read_ptx_sreg_laneid(); }
CUGEN_CG unsigned block_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
CUGEN_CG unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// shfl shuffles a value of any trivially copyable type, a 32-bit word at a
// time (cooperative groups shuffle structs too); mode 0 idx, 1 up, 2 down,
// 3 xor.
template <class T> CUGEN_CG T shfl(int mode, unsigned mask, T v, int b, int w) {
  constexpr int n = (sizeof(T) + 3) / 4;
  unsigned words[n] = {};
  __builtin_memcpy(words, &v, sizeof(T));
  for (int i = 0; i < n; i++) {
    switch (mode) {
    case 0:
      words[i] = __shfl_sync(mask, words[i], b, w);
      break;
    case 1:
      words[i] = __shfl_up_sync(mask, words[i], (unsigned)b, w);
      break;
    case 2:
      words[i] = __shfl_down_sync(mask, words[i], (unsigned)b, w);
      break;
    default:
      words[i] = __shfl_xor_sync(mask, words[i], b, w);
    }
  }
  T r;
  __builtin_memcpy(&r, words, sizeof(T));
  return r;
}
} // namespace __cugen_cg

// thread_group is a group known at run time: a mask of lanes of one warp,
// or the whole block.
class thread_group {
protected:
  unsigned mask_;   // lanes of the warp (for warp-level groups)
  unsigned size_;   // threads in the group
  bool block_;      // the whole thread block
  CUGEN_CGM thread_group(unsigned m, unsigned s, bool b) : mask_(m), size_(s), block_(b) {}

public:
  CUGEN_CGM unsigned long long size() const { return size_; }
  CUGEN_CGM unsigned long long num_threads() const { return size_; }
  CUGEN_CGM unsigned long long thread_rank() const {
    return block_ ? __cugen_cg::block_rank() : __popc(mask_ & __lanemask_lt());
  }
  CUGEN_CGM void sync() const {
    if (block_)
      __syncthreads();
    else
      __syncwarp(mask_);
  }
  CUGEN_CGM bool is_valid() const { return size_ != 0; }
};

class thread_block : public thread_group {
  friend CUGEN_CGM thread_block this_thread_block();
  CUGEN_CGM thread_block() : thread_group(0xffffffffu, __cugen_cg::block_size(), true) {}

public:
  CUGEN_CGM void sync() const { __syncthreads(); }
  CUGEN_CGM unsigned long long thread_rank() const { return __cugen_cg::block_rank(); }
  CUGEN_CGM unsigned long long size() const { return __cugen_cg::block_size(); }
  CUGEN_CGM unsigned long long num_threads() const { return __cugen_cg::block_size(); }
  CUGEN_CGM dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  CUGEN_CGM dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  CUGEN_CGM dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  CUGEN_CGM dim3 dim_threads() const { return group_dim(); }
};
CUGEN_CGM thread_block this_thread_block() { return thread_block(); }

// grid_group: the grid's shape and this thread's place in it.
class grid_group {
public:
  CUGEN_CGM unsigned long long size() const {
    return (unsigned long long)__cugen_cg::block_size() * gridDim.x * gridDim.y * gridDim.z;
  }
  CUGEN_CGM unsigned long long num_threads() const { return size(); }
  CUGEN_CGM unsigned long long block_rank() const {
    return (blockIdx.z * gridDim.y + blockIdx.y) * (unsigned long long)gridDim.x + blockIdx.x;
  }
  CUGEN_CGM unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  CUGEN_CGM unsigned long long thread_rank() const {
    return block_rank() * __cugen_cg::block_size() + __cugen_cg::block_rank();
  }
  CUGEN_CGM dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  CUGEN_CGM dim3 dim_blocks() const { return group_dim(); }
  CUGEN_CGM dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  CUGEN_CGM bool is_valid() const { return true; }
  // Grid-wide sync needs a cooperative launch's grid workspace, which only
  // nvcc's runtime support code reaches.
  CUGEN_CGM void sync() const CUGEN_UNAVAILABLE("grid-wide sync (grid_group::sync, a cooperative launch's barrier)");
};
CUGEN_CGM grid_group this_grid() { return grid_group(); }
template <class... A> static __device__ int this_multi_grid(A...) CUGEN_UNAVAILABLE("cooperative_groups::this_multi_grid");
template <class... A> static __device__ int labeled_partition(A...) CUGEN_UNAVAILABLE("cooperative_groups::labeled_partition");
template <class... A> static __device__ int binary_partition(A...) CUGEN_UNAVAILABLE("cooperative_groups::binary_partition");
template <class... A> static __device__ int memcpy_async(A...) CUGEN_UNAVAILABLE("cooperative_groups::memcpy_async");

// thread_block_tile<N>: N consecutive lanes (N a power of two up to 32).
template <unsigned N> class thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "thread_block_tile<N>: N is a power of two from 1 to 32");

public:
  CUGEN_CGM unsigned mask() const {
    return N == 32 ? 0xffffffffu : ((1u << N) - 1) << (__cugen_cg::laneid() & ~(N - 1));
  }
  CUGEN_CGM unsigned long long size() const { return N; }
  CUGEN_CGM unsigned long long num_threads() const { return N; }
  CUGEN_CGM unsigned long long thread_rank() const { return __cugen_cg::laneid() & (N - 1); }
  CUGEN_CGM unsigned long long meta_group_rank() const { return __cugen_cg::block_rank() / N; }
  CUGEN_CGM unsigned long long meta_group_size() const { return (__cugen_cg::block_size() + N - 1) / N; }
  CUGEN_CGM void sync() const { __syncwarp(mask()); }
  CUGEN_CGM bool is_valid() const { return true; }
  template <class T> CUGEN_CGM T shfl(T v, int src) const { return __cugen_cg::shfl(0, mask(), v, src, N); }
  template <class T> CUGEN_CGM T shfl_up(T v, unsigned d) const { return __cugen_cg::shfl(1, mask(), v, (int)d, N); }
  template <class T> CUGEN_CGM T shfl_down(T v, unsigned d) const { return __cugen_cg::shfl(2, mask(), v, (int)d, N); }
  template <class T> CUGEN_CGM T shfl_xor(T v, unsigned m) const { return __cugen_cg::shfl(3, mask(), v, (int)m, N); }
  CUGEN_CGM int any(int p) const { return __any_sync(mask(), p); }
  CUGEN_CGM int all(int p) const { return __all_sync(mask(), p); }
  // Votes and matches answer in the tile's own lane numbering.
  CUGEN_CGM unsigned ballot(int p) const { return (__ballot_sync(mask(), p) & mask()) >> base(); }
  template <class T> CUGEN_CGM unsigned match_any(T v) const { return (__match_any_sync(mask(), v) & mask()) >> base(); }
  template <class T> CUGEN_CGM unsigned match_all(T v, int &pred) const {
    return (__match_all_sync(mask(), v, &pred) & mask()) >> base();
  }
  CUGEN_CGM unsigned base() const { return __cugen_cg::laneid() & ~(N - 1) & 31; }
  CUGEN_CGM operator thread_group() const;
};

template <unsigned N, class Parent> CUGEN_CG thread_block_tile<N> tiled_partition(const Parent &) {
  return thread_block_tile<N>();
}

// coalesced_group: the lanes active where it was made.
class coalesced_group : public thread_group {
  friend CUGEN_CGM coalesced_group coalesced_threads();
  CUGEN_CGM explicit coalesced_group(unsigned m) : thread_group(m, __popc(m), false) {}
  CUGEN_CGM int lane_of(unsigned rank) const { return (int)__fns(mask_, 0, (int)rank + 1); }

public:
  CUGEN_CGM unsigned long long thread_rank() const { return __popc(mask_ & __lanemask_lt()); }
  CUGEN_CGM void sync() const { __syncwarp(mask_); }
  template <class T> CUGEN_CGM T shfl(T v, unsigned rank) const {
    return __cugen_cg::shfl(0, mask_, v, lane_of(rank), 32);
  }
  template <class T> CUGEN_CGM T shfl_up(T v, unsigned d) const {
    unsigned r = (unsigned)thread_rank();
    return __cugen_cg::shfl(0, mask_, v, lane_of(r >= d ? r - d : r), 32);
  }
  template <class T> CUGEN_CGM T shfl_down(T v, unsigned d) const {
    unsigned r = (unsigned)thread_rank();
    return __cugen_cg::shfl(0, mask_, v, lane_of(r + d < size_ ? r + d : r), 32);
  }
  CUGEN_CGM int any(int p) const { return __any_sync(mask_, p); }
  CUGEN_CGM int all(int p) const { return __all_sync(mask_, p); }
  CUGEN_CGM unsigned ballot(int p) const {
    unsigned b = __ballot_sync(mask_, p), r = 0;
    for (unsigned i = 0, j = 0; i < 32; i++) { // compress to group ranks
      if ((mask_ >> i) & 1) r |= ((b >> i) & 1) << j++;
    }
    return r;
  }
};
CUGEN_CGM coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <unsigned N> CUGEN_CGM thread_block_tile<N>::operator thread_group() const {
  struct tg : thread_group {
    CUGEN_CGM tg(unsigned m) : thread_group(m, N, false) {}
  };
  return tg(mask());
}

// tiled_partition(parent, n): a tile whose size is known at run time.
CUGEN_CG thread_group tiled_partition(const thread_group &, unsigned n) {
  struct tg : thread_group {
    CUGEN_CGM tg(unsigned m, unsigned s) : thread_group(m, s, false) {}
  };
  unsigned base = __cugen_cg::laneid() & ~(n - 1) & 31;
  return tg(n >= 32 ? 0xffffffffu : ((1u << n) - 1) << base, n);
}

template <class G> CUGEN_CG void sync(const G &g) { g.sync(); }
CUGEN_CG void sync(const grid_group &) CUGEN_UNAVAILABLE("grid-wide sync (cooperative_groups::sync of a grid_group)");
template <class G> CUGEN_CG unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <class G> CUGEN_CG unsigned long long group_size(const G &g) { return g.size(); }

// The operators of reduce and scan.
template <class T> struct plus {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
  CUGEN_CGM T operator()(const T &a, const T &b) const { return a ^ b; }
};

// reduce over a tile: a butterfly of xor shuffles, every lane gets the result.
template <unsigned N, class T, class Op> CUGEN_CG T reduce(const thread_block_tile<N> &g, T v, Op op) {
  for (unsigned i = N / 2; i > 0; i /= 2) v = op(v, g.shfl_xor(v, i));
  return v;
}
// reduce over a coalesced group: fold the ranks in order.
template <class T, class Op> CUGEN_CG T reduce(const coalesced_group &g, T v, Op op) {
  T acc = g.shfl(v, 0);
  for (unsigned r = 1; r < g.size(); r++) acc = op(acc, g.shfl(v, r));
  return acc;
}

template <unsigned N, class T, class Op> CUGEN_CG T inclusive_scan(const thread_block_tile<N> &g, T v, Op op) {
  unsigned r = (unsigned)g.thread_rank();
  for (unsigned d = 1; d < N; d *= 2) {
    T o = g.shfl_up(v, d);
    if (r >= d) v = op(o, v);
  }
  return v;
}
template <unsigned N, class T> CUGEN_CG T inclusive_scan(const thread_block_tile<N> &g, T v) {
  return inclusive_scan(g, v, plus<T>());
}
template <unsigned N, class T, class Op> CUGEN_CG T exclusive_scan(const thread_block_tile<N> &g, T v, Op op) {
  T inc = inclusive_scan(g, v, op);
  T prev = g.shfl_up(inc, 1);
  return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class T> CUGEN_CG T exclusive_scan(const thread_block_tile<N> &g, T v) {
  return exclusive_scan(g, v, plus<T>());
}
} // namespace cooperative_groups

#endif
