package clang

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// shflPTX is PTX's shfl.sync for one lane: the source lane of mode (idx,
// up, down, bfly) with operand b and a segment of w lanes, or the lane's
// own value when the source is outside the segment.
func shflPTX(v []int64, lane int, mode string, b, w int) int64 {
	warp := lane &^ 31
	l := lane & 31
	segmask := 32 - w
	clamp := 0x1f
	if mode == "up" {
		clamp = 0
	}
	minLane := l & segmask
	maxLane := minLane | clamp&^segmask
	var j int
	var ok bool
	switch mode {
	case "idx":
		j = minLane | b&0x1f&^segmask
		ok = j <= maxLane
	case "up":
		j = l - b
		ok = j >= maxLane
	case "down":
		j = l + b
		ok = j <= maxLane
	case "bfly":
		j = l ^ b
		ok = j <= maxLane
	}
	if !ok {
		return v[lane]
	}
	return v[warp+j]
}

func runWarpKernel(t *testing.T, gpu, name string, in []int32, nout int) [][]int64 {
	t.Helper()
	ctx, lib := clangLib(t, "warp", gpu)
	n := len(in)
	out := devZero[int64](t, ctx, n*nout)
	launch(t, ctx, lib, name, 1, n, new(kernelArgs).ptr(devBuf(t, ctx, in).Ptr.Addr()).ptr(out.Ptr.Addr()).i32(int32(n)))
	flat := toHost(t, out)
	res := make([][]int64, nout)
	for k := range res {
		res[k] = flat[k*n : (k+1)*n]
	}
	return res
}

func checkLanes(t *testing.T, what string, got []int64, want func(lane int) int64) {
	t.Helper()
	for lane, g := range got {
		if w := want(lane); g != w {
			t.Errorf("%s: lane %d = %d (%#x), want %d (%#x)", what, lane, g, g, w, w)
			return
		}
	}
}

// TestClangWarp checks shuffles of every type and width, votes,
// __activemask in a divergent branch, the __reduce_*_sync functions (the
// shuffle fallback on sm_70, redux.sync on sm_80) and the match functions.
func TestClangWarp(t *testing.T) {
	t.Parallel()
	const n = 64
	r := rand.New(rand.NewPCG(7, 8))
	in := make([]int32, n)
	v := make([]int64, n)
	for i := range in {
		in[i] = int32(r.IntN(100))
		v[i] = int64(in[i])
	}
	for _, gpu := range []string{"sm_70", "sm_80"} {
		t.Run(gpu, func(t *testing.T) {
			s := runWarpKernel(t, gpu, "shuffles", in, 14)
			apply := func(f func(x int64) int64) []int64 {
				o := make([]int64, n)
				for i, x := range v {
					o[i] = f(x)
				}
				return o
			}
			u := apply(func(x int64) int64 { return int64(uint32(x) * 3) })
			l := apply(func(x int64) int64 { return x<<33 | int64(uint32(x)) })
			ul := apply(func(x int64) int64 { return (x<<33 | int64(uint32(x))) ^ int64(-0x0f0f0f1000000000) })
			k := 0
			for _, c := range []struct {
				vals    []int64
				mode    string
				b, w    int
				perLane func(lane int) int
			}{
				{v, "idx", 0, 32, func(l int) int { return (l*7 + 3) & 31 }},
				{v, "up", 3, 32, nil}, {v, "down", 5, 32, nil}, {v, "bfly", 6, 32, nil},
				{v, "idx", 0, 8, func(l int) int { return l*3 + 1 }},
				{v, "up", 2, 8, nil}, {v, "down", 3, 16, nil}, {v, "bfly", 5, 8, nil},
				{u, "idx", 9, 32, nil}, {v, "down", 1, 32, nil}, {l, "bfly", 1, 32, nil}, {ul, "up", 1, 32, nil},
				{v, "idx", 30, 32, nil}, {v, "down", 4, 16, nil},
			} {
				c := c
				checkLanes(t, fmt.Sprintf("shuffle %d (%s %d, width %d)", k, c.mode, c.b, c.w), s[k], func(lane int) int64 {
					b := c.b
					if c.perLane != nil {
						b = c.perLane(lane & 31)
					}
					return shflPTX(c.vals, lane, c.mode, b, c.w)
				})
				k++
			}

			o := runWarpKernel(t, gpu, "votes", in, 18)
			warp := func(lane int, f func(x int64, l int) bool) []int64 {
				var xs []int64
				for i := lane &^ 31; i < lane&^31+32; i++ {
					if f(v[i], i&31) {
						xs = append(xs, v[i])
					}
				}
				return xs
			}
			mask := func(lane int, f func(x int64, l int) bool) int64 {
				var m uint32
				for i := 0; i < 32; i++ {
					if f(v[lane&^31+i], i) {
						m |= 1 << i
					}
				}
				return int64(m)
			}
			all := func(x int64, l int) bool { return true }
			b2i := func(b bool) int64 {
				if b {
					return 1
				}
				return 0
			}
			fold := func(xs []int64, f func(a, b int64) int64) int64 {
				acc := xs[0]
				for _, x := range xs[1:] {
					acc = f(acc, x)
				}
				return acc
			}
			checkLanes(t, "__ballot_sync", o[0], func(l int) int64 { return mask(l, func(x int64, _ int) bool { return x%3 == 0 }) })
			checkLanes(t, "__any_sync", o[1], func(l int) int64 { return b2i(mask(l, func(x int64, _ int) bool { return x > 90 }) != 0) })
			checkLanes(t, "__all_sync", o[2], func(l int) int64 { return 1 })
			checkLanes(t, "__uni_sync", o[3], func(l int) int64 { return 1 })
			checkLanes(t, "__uni_sync(parity)", o[4], func(l int) int64 {
				m := mask(l, func(x int64, _ int) bool { return x%2 == 1 })
				return b2i(m == 0 || m == 0xffffffff)
			})
			checkLanes(t, "__activemask (lanes %3 == 0)", o[5], func(l int) int64 {
				if l&31%3 != 0 {
					return 0
				}
				return 0x49249249
			})
			checkLanes(t, "__reduce_add_sync", o[6], func(l int) int64 {
				return int64(uint32(fold(warp(l, all), func(a, b int64) int64 { return a + b })))
			})
			checkLanes(t, "__reduce_min_sync", o[7], func(l int) int64 { return fold(warp(l, all), min64) - 50 })
			checkLanes(t, "__reduce_max_sync", o[8], func(l int) int64 {
				var m int64
				for _, x := range warp(l, all) {
					m = max(m, x*7%64)
				}
				return m
			})
			checkLanes(t, "__reduce_and_sync", o[9], func(l int) int64 {
				return fold(warp(l, all), func(a, b int64) int64 { return a & b }) | 0xf0
			})
			checkLanes(t, "__reduce_or_sync", o[10], func(l int) int64 {
				var m int64
				for _, x := range warp(l, all) {
					m |= 1 << (x & 7)
				}
				return m
			})
			checkLanes(t, "__reduce_xor_sync", o[11], func(l int) int64 { return fold(warp(l, all), func(a, b int64) int64 { return a ^ b }) })
			checkLanes(t, "__reduce_add_sync(even lanes)", o[12], func(l int) int64 {
				if l%2 != 0 {
					return -1
				}
				return fold(warp(l, func(_ int64, i int) bool { return i%2 == 0 }), func(a, b int64) int64 { return a + b })
			})
			checkLanes(t, "__match_any_sync", o[13], func(l int) int64 {
				return mask(l, func(x int64, _ int) bool { return x%4 == v[l]%4 })
			})
			checkLanes(t, "__match_all_sync", o[14], func(l int) int64 { return 0xffffffff })
			checkLanes(t, "__match_all_sync pred", o[15], func(l int) int64 { return 1 })
			checkLanes(t, "__match_any_sync(long long)", o[16], func(l int) int64 {
				return mask(l, func(x int64, _ int) bool { return x%2 == v[l]%2 })
			})
		})
	}
}

// TestClangCooperativeGroups checks the cooperative-groups subset: block
// and tile ranks and sizes, cg::reduce with plus, less, greater and
// bit_xor, tile shuffles, votes and scans, coalesced groups in a divergent
// branch, run-time tiles and the grid, and shuffles and reductions of a
// struct.
func TestClangCooperativeGroups(t *testing.T) {
	t.Parallel()
	const n = 64
	r := rand.New(rand.NewPCG(9, 10))
	in := make([]int32, n)
	v := make([]int64, n)
	for i := range in {
		in[i] = int32(r.IntN(100))
		v[i] = int64(in[i])
	}
	o := runWarpKernel(t, "sm_70", "groups", in, 32)
	tileOf := func(l, size int) []int64 { return v[l&^(size-1) : l&^(size-1)+size] }
	fold := func(xs []int64, f func(a, b int64) int64) int64 {
		acc := xs[0]
		for _, x := range xs[1:] {
			acc = f(acc, x)
		}
		return acc
	}
	add := func(a, b int64) int64 { return a + b }
	k := 0
	next := func(what string, want func(l int) int64) {
		t.Helper()
		checkLanes(t, what, o[k], want)
		k++
	}
	next("block.thread_rank", func(l int) int64 { return int64(l) })
	next("block.size", func(l int) int64 { return n })
	next("tile.thread_rank", func(l int) int64 { return int64(l % 16) })
	next("tile.meta_group_rank", func(l int) int64 { return int64(l / 16) })
	next("tile.meta_group_size", func(l int) int64 { return n / 16 })
	next("reduce plus", func(l int) int64 { return fold(tileOf(l, 16), add) })
	next("reduce less", func(l int) int64 { return fold(tileOf(l, 16), min64) })
	next("reduce greater", func(l int) int64 { return fold(tileOf(l, 16), max64) })
	next("reduce bit_xor (tile of 4)", func(l int) int64 { return fold(tileOf(l, 4), func(a, b int64) int64 { return a ^ b }) })
	next("reduce plus (double)", func(l int) int64 { return fold(tileOf(l, 16), add) })
	next("tile.shfl", func(l int) int64 { return tileOf(l, 16)[5] })
	next("tile.shfl_down", func(l int) int64 {
		if l%16+2 < 16 {
			return v[l+2]
		}
		return v[l]
	})
	next("tile.shfl_up", func(l int) int64 {
		if l%16 >= 1 {
			return v[l-1]
		}
		return v[l]
	})
	next("tile.shfl_xor", func(l int) int64 { return v[l^3] })
	next("tile.ballot", func(l int) int64 {
		var m int64
		for i, x := range tileOf(l, 16) {
			m |= (x % 2) << i
		}
		return m
	})
	next("tile.any", func(l int) int64 {
		for _, x := range tileOf(l, 16) {
			if x == 7 {
				return 1
			}
		}
		return 0
	})
	next("tile.all", func(l int) int64 { return 1 })
	next("inclusive_scan", func(l int) int64 { return fold(v[l&^15:l+1], add) })
	next("exclusive_scan", func(l int) int64 {
		if l%16 == 0 {
			return 0
		}
		return fold(v[l&^15:l], add)
	})
	next("inclusive_scan greater (tile of 4)", func(l int) int64 { return fold(v[l&^3:l+1], max64) })
	coalesced := func(l int) []int {
		var lanes []int
		for i := l &^ 31; i < l&^31+32; i++ {
			if v[i]%3 != 0 {
				lanes = append(lanes, i)
			}
		}
		return lanes
	}
	next("coalesced size", func(l int) int64 {
		if v[l]%3 == 0 {
			return -1
		}
		return int64(len(coalesced(l)))
	})
	next("coalesced thread_rank", func(l int) int64 {
		if v[l]%3 == 0 {
			return -1
		}
		for r, i := range coalesced(l) {
			if i == l {
				return int64(r)
			}
		}
		return -2
	})
	next("coalesced reduce", func(l int) int64 {
		if v[l]%3 == 0 {
			return -1
		}
		var s int64
		for _, i := range coalesced(l) {
			s += v[i]
		}
		return s
	})
	next("coalesced shfl(0)", func(l int) int64 {
		if v[l]%3 == 0 {
			return -1
		}
		return v[coalesced(l)[0]]
	})
	next("tiled_partition(b, 8).thread_rank", func(l int) int64 { return int64(l % 8) })
	next("tiled_partition(b, 8).size", func(l int) int64 { return 8 })
	next("grid.thread_rank", func(l int) int64 { return int64(l) })
	next("grid.size", func(l int) int64 { return n })
	next("reduce of a struct (sum)", func(l int) int64 { return fold(tileOf(l, 16), add) })
	next("reduce of a struct (max)", func(l int) int64 { return fold(tileOf(l, 16), max64) })
	next("shfl of a struct", func(l int) int64 { return tileOf(l, 16)[2] })
	_ = bits.OnesCount
}

func min64(a, b int64) int64 { return min(a, b) }
func max64(a, b int64) int64 { return max(a, b) }
