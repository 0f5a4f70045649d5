package clang

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestClangAtomics runs every atomic function CUDA has, in the gpu, block
// and system scopes, for int, unsigned, unsigned long long, long long,
// float, double and (atomicCAS) unsigned short, from 256 threads in 4
// blocks, and checks the totals; on sm_52 double atomicAdd is the
// compare-and-swap loop.
func TestClangAtomics(t *testing.T) {
	t.Parallel()
	for _, gpu := range []string{"sm_70", "sm_52"} {
		t.Run(gpu, func(t *testing.T) {
			ctx, lib := clangLib(t, "atomic", gpu)
			const n, block = 256, 64
			r := rand.New(rand.NewPCG(11, 12))
			x := make([]int32, n)
			for i := range x {
				x[i] = int32(r.IntN(1000))
			}
			ai := make([]int32, 32)
			ai[14], ai[15], ai[16], ai[17], ai[18], ai[19], ai[21] = 1<<30, -1<<30, 1<<30, 1<<30, 1<<30, 1<<30, -1
			au := make([]uint32, 16)
			au[4], au[5], au[11] = ^uint32(0), ^uint32(0), 999999
			aul := make([]uint64, 16)
			aul[6], aul[7] = ^uint64(0), ^uint64(0)
			al := []int64{1 << 62, -1 << 62}
			af, ad := make([]float32, 8), make([]float64, 8)
			as := []uint16{65530}
			bi, bu, bul, bal := devBuf(t, ctx, ai), devBuf(t, ctx, au), devBuf(t, ctx, aul), devBuf(t, ctx, al)
			bf, bd, bs, bo := devBuf(t, ctx, af), devBuf(t, ctx, ad), devBuf(t, ctx, as), devZero[int32](t, ctx, n)
			launch(t, ctx, lib, "atomics", n/block, block, new(kernelArgs).ptr(devBuf(t, ctx, x).Ptr.Addr()).
				ptr(bi.Ptr.Addr()).ptr(bu.Ptr.Addr()).ptr(bul.Ptr.Addr()).ptr(bal.Ptr.Addr()).ptr(bf.Ptr.Addr()).
				ptr(bd.Ptr.Addr()).ptr(bs.Ptr.Addr()).ptr(bo.Ptr.Addr()).i32(n))
			gi, gu, gul, gl := toHost(t, bi), toHost(t, bu), toHost(t, bul), toHost(t, bal)
			gf, gd, gs, olds := toHost(t, bf), toHost(t, bd), toHost(t, bs), toHost(t, bo)

			var sum, xr int32
			var and16, or16 int32 = -1, 0
			var and32, or32 uint32 = ^uint32(0), 0
			var and64, or64, xr64 uint64 = ^uint64(0), 0, 0
			minv, maxv := x[0], x[0]
			inc, dec := uint32(0), uint32(0)
			for _, v := range x {
				sum += v
				xr ^= v
				minv, maxv = min(minv, v), max(maxv, v)
				and16 &^= 1 << (v & 15)
				or16 |= 1 << (v & 15)
				and32 &^= 1 << (v & 31)
				or32 |= 1 << (v & 31)
				and64 &^= 1 << (v & 63)
				or64 |= 1 << (v & 63)
				xr64 ^= uint64(v) << 20
				if inc >= 100 {
					inc = 0
				} else {
					inc++
				}
				if dec == 0 || dec > 100 {
					dec = 100
				} else {
					dec--
				}
			}
			blockSum := func(b int) (s int32) {
				for _, v := range x[b*block : (b+1)*block] {
					s += v
				}
				return
			}
			blockMin := func(b int) int32 { return slices.Min(x[b*block : (b+1)*block]) }
			blockOr := func(b int) (m uint32) {
				for _, v := range x[b*block : (b+1)*block] {
					m |= 1 << (v & 31)
				}
				return
			}
			check := func(what string, got, want any) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("atomicAdd(int)", gi[0], sum)
			check("atomicAdd_system(int)", gi[8], sum)
			check("atomicSub(int)", gi[9], -sum)
			check("atomicMin(int)", gi[14], minv-500)
			check("atomicMax(int)", gi[15], maxv-500)
			check("atomicMax_system(int)", gi[20], maxv)
			check("atomicAnd(int)", gi[21], and16)
			check("atomicOr(int)", gi[22], or16)
			check("atomicXor(int)", gi[23], xr)
			check("atomicCAS(int) loop", gi[24], int32(n))
			for b := 0; b < n/block; b++ {
				check("atomicAdd_block(int)", gi[1+b], blockSum(b))
				check("atomicSub_block(int)", gi[10+b], -blockSum(b))
				check("atomicMin_block(int)", gi[16+b], blockMin(b))
				check("atomicOr_block(unsigned)", gu[6+b], blockOr(b))
				check("atomicAdd_block(unsigned long long)", gul[1+b], uint64(blockSum(b)))
				check("atomicAdd_block(float)", gf[1+b], float32(blockSum(b))*0.25)
				check("atomicAdd_block(double)", gd[1+b], float64(blockSum(b))*0.25)
			}
			check("atomicAdd(unsigned)", gu[0], uint32(sum)*1000)
			check("atomicInc", gu[1], inc)
			check("atomicDec", gu[2], dec)
			check("atomicMax(unsigned)", gu[3], uint32(maxv))
			check("atomicMin(unsigned)", gu[4], uint32(minv))
			check("atomicAnd_system(unsigned)", gu[5], and32)
			check("atomicXor_system(unsigned)", gu[10], uint32(xr)<<3)
			exch := append([]int32{int32(gu[11])}, olds...)
			slices.Sort(exch)
			for i, v := range exch[:n] {
				if v != int32(i) {
					t.Errorf("atomicExch: old values and the last are not 0..%d and 999999: %v", n-1, exch)
					break
				}
			}
			check("atomicExch last value", exch[n], int32(999999))
			check("atomicAdd(unsigned long long)", gul[0], uint64(sum)<<32)
			check("atomicMax(unsigned long long)", gul[5], uint64(maxv)<<40)
			check("atomicMin(unsigned long long)", gul[6], uint64(minv)<<40)
			check("atomicAnd(unsigned long long)", gul[7], and64)
			check("atomicOr(unsigned long long)", gul[8], or64)
			check("atomicXor(unsigned long long)", gul[9], xr64)
			check("atomicCAS(unsigned long long) loop", gul[10], uint64(3*n))
			check("atomicMin(long long)", gl[0], int64(minv)-1000000000000)
			check("atomicMax(long long)", gl[1], int64(minv)*-1000000000000)
			check("atomicAdd(float)", gf[0], float32(sum)*0.5)
			check("atomicAdd_system(float)", gf[5], float32(sum)*0.125)
			check("atomicExch(float)", gf[6], float32(1.5))
			check("atomicAdd(double)", gd[0], float64(sum)*0.5)
			check("atomicAdd_system(double)", gd[5], float64(sum)*0.125)
			check("atomicCAS(unsigned short) loop", gs[0], uint16(65530+n-65536))
		})
	}
}
