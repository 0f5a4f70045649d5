package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestGlobal32MatchesGeneral: ldG32 and stG32 (the pass over the lanes of m
// that hands the rest of the warp to the general path at a bad lane, and,
// for a load into its address register, the branch-free check of the lanes
// against the cached allocation) give what the
// general ld and st give lane by lane: the same registers, the same memory and
// the same fault (kind, lane, pc, address, size, space, direction, message),
// for every mask and address pattern, with the instruction's cache cold, on
// the buffer, on another buffer or on a read-only one, and with the lanes
// outside the mask exited (whose destinations are then scratch).
func TestGlobal32MatchesGeneral(t *testing.T) {
	e := newEnv(t, Config{})
	const size = 1024
	alloc := func(n uint64, what string) *Alloc {
		a, err := e.host.Alloc("cuMemAlloc", n, what)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	buf, other, ro, foreign := alloc(size, "buf"), alloc(256, "other"), alloc(256, "ro"), alloc(256, "foreign")
	ro.ReadOnly = true
	foreign.Owner = &testHost{}
	rnd := rand.New(rand.NewPCG(7, 8))
	fill := func() {
		for _, a := range []*Alloc{buf, other, ro, foreign} {
			b := a.Bytes()
			for i := range b {
				b[i] = byte(i*31 + int(a.Base>>12))
			}
		}
	}
	snapshot := func() []byte {
		var s []byte
		for _, a := range []*Alloc{buf, other, ro, foreign} {
			s = append(s, a.Bytes()...)
		}
		return s
	}
	// Addresses of lane l, with lane k (and k+3 for "two") made unusual.
	type pattern struct {
		name string
		addr func(l, k int) uint64
	}
	seq := func(l int) uint64 { return buf.Base + 64 + 4*uint64(l) }
	odd := func(k int, bad uint64) func(l, kk int) uint64 {
		return func(l, kk int) uint64 {
			if l == kk {
				return bad
			}
			return seq(l)
		}
	}
	patterns := []pattern{
		{"seq", func(l, k int) uint64 { return seq(l) }},
		{"scatter", func(l, k int) uint64 { return buf.Base + 4*uint64(l*7%32*9) }},
		{"same", func(l, k int) uint64 { return buf.Base + 100 }},
		{"last", func(l, k int) uint64 { return buf.Base + size - 4*uint64(32-l) }},
		{"past-end", odd(0, buf.Base+size)},
		{"straddle", odd(0, buf.Base+size-2)},
		{"misaligned", odd(0, buf.Base+66)},
		{"other", odd(0, other.Base+8)},
		{"null", odd(0, 0)},
		{"ro", odd(0, ro.Base+4)},
		{"foreign", odd(0, foreign.Base+4)},
		{"below", odd(0, buf.Base-4)},
		// Whole runs: one crossing the end of the buffer (lanes 16 on
		// outside it), one starting before it, one misaligned.
		{"cross-end", func(l, k int) uint64 { return buf.Base + size - 64 + 4*uint64(l) }},
		{"cross-start", func(l, k int) uint64 { return buf.Base - 64 + 4*uint64(l) }},
		{"run-misaligned", func(l, k int) uint64 { return buf.Base + 2 + 4*uint64(l) }},
		{"two", func(l, k int) uint64 {
			switch l {
			case k:
				return buf.Base + 65
			case (k + 3) % 32:
				return 0
			}
			return seq(l)
		}},
	}
	masks := []uint32{fullMask, 0x7ffffffe, 0x80000001, 0xfffffff0, 0xaaaaaaaa, 1, 1 << 31, 1 << 5}
	caches := []*Alloc{nil, buf, other, ro}
	checked, fast := 0, 0
	for _, store := range []bool{false, true} {
		for _, alias := range []bool{false, true} {
			if store && alias {
				continue
			}
			for _, p := range patterns {
				for _, k := range []int{0, 5, 31} {
					for _, imm := range []int64{0, -4, 8} {
						for _, m := range masks {
							for _, ca := range caches {
								for _, exited := range []bool{false, true} {
									if exited && m == fullMask {
										continue
									}
									var r [4 * 32]uint64
									for l := 0; l < 32; l++ {
										r[32+l] = p.addr(l, k) - uint64(imm)
										r[64+l] = rnd.Uint64()
									}
									in := inst{op: opLdG32, fl: 4, e: 1, gp: -1, d: 64, a: 32, imm: imm, aux2: spGlobal, aux: -1}
									if store {
										in.op = opStG32
									}
									if alias {
										in.d = 32
									}
									run := func(general bool) (bool, [4 * 32]uint64, []byte, *fault) {
										fill()
										c := &cta{l: &Launch{Mem: e.mem, Host: e.host}, gc: make([]gcache, 3), pc: 2}
										w := &warp{id: 3, r: make([]uint64, len(r)), live: fullMask} // every lane exists
										if exited {
											w.exited = ^m // the lanes outside m have exited: the run may cover them (runRead)
										}
										copy(w.r, r[:])
										c.w = w
										if ca != nil {
											c.gc[2] = gcache{ca.Base, ca.Size, unsafe.Pointer(ca.ptr.Load()), ca.ReadOnly}
										}
										var ok bool
										switch {
										case general && store:
											ok = c.st(w, &in, m)
										case general:
											ok = c.ld(w, &in, m)
										case store:
											ok = c.stG32(w, &in, m)
										default:
											ok = c.ldG32(w, &in, m)
										}
										var out [4 * 32]uint64
										copy(out[:], w.r)
										return ok, out, snapshot(), c.fault
									}
									okF, rF, memF, fF := run(false)
									okG, rG, memG, fG := run(true)
									what := fmt.Sprintf("store %v alias %v %s k=%d imm=%d mask %#x cache %v exited %v", store, alias, p.name, k, imm, m, ca != nil, exited)
									if exited && !store {
										// An exited lane's destination is scratch.
										for l := range 32 {
											if m&(1<<l) == 0 {
												rF[in.d+uint32(l)], rG[in.d+uint32(l)] = 0, 0
											}
										}
									}
									checked++
									if okF && ca == buf {
										fast++
									}
									if okF != okG || rF != rG {
										t.Fatalf("%s: fast path ok=%v, general ok=%v (registers equal: %v)", what, okF, okG, rF == rG)
									}
									if string(memF) != string(memG) {
										t.Fatalf("%s: memory differs from the general path's", what)
									}
									if (fF == nil) != (fG == nil) || fF != nil && *fF != *fG {
										t.Fatalf("%s: fault %+v, general path %+v", what, fF, fG)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if fast < checked/8 {
		t.Errorf("only %d of %d cases succeeded on the cached buffer", fast, checked)
	}
}

// TestFoldedMatchesGeneral: ldGAdd and stGAdd (one pass over the lanes of m
// summing the folded add, the rest of the warp handed to the general path
// at a bad lane) give what the add followed by the general ld or st gives:
// the same registers (but the address register, which only the access
// reads), memory and fault, for full and partial warps, a uniform or a
// lane-varying second source, loads of 4 and 1 bytes, with a bad lane in
// the cached buffer's neighbour, past its end, misaligned or null.
func TestFoldedMatchesGeneral(t *testing.T) {
	e := newEnv(t, Config{})
	buf, err := e.host.Alloc("cuMemAlloc", 1024, "buf")
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.host.Alloc("cuMemAlloc", 256, "other")
	if err != nil {
		t.Fatal(err)
	}
	fill := func() {
		for _, a := range []*Alloc{buf, other} {
			b := a.Bytes()
			for i := range b {
				b[i] = byte(i*29 + int(a.Base>>12))
			}
		}
	}
	snapshot := func() string { return string(buf.Bytes()) + string(other.Bytes()) }
	// A bad lane's address; crossEnd: every lane from k on runs past the
	// end of buf; none: no bad lane (one 128-byte run when size is 4).
	const crossEnd, none = 1, 2
	bads := []uint64{0, buf.Base + 1024, buf.Base + 66, other.Base + 8, buf.Base + 200, buf.Base + 1020, buf.Base + 1023, buf.Base - 4, crossEnd, none}
	masks := []uint32{fullMask, 0x7ffffffe, 0x80000001, 0xfffffff0, 0xaaaaaaaa, 1 << 31}
	const a, d, u, v = 32, 64, 96, 128
	checked := 0
	for _, op := range []opcode{opLdGAdd, opStGAdd} {
		for _, size := range []uint16{4, 1} {
			if op == opStGAdd && size == 1 {
				continue
			}
			for _, uni := range []bool{true, false} {
				for _, bad := range bads {
					for _, k := range []int{0, 6, 31} {
						for _, m := range masks {
							for _, exited := range []bool{false, true} {
								if exited && m == fullMask {
									continue
								}
								var r [5 * 32]uint64
								imm := int64(8)
								for l := 0; l < 32; l++ {
									addr := buf.Base + 64 + uint64(l)*uint64(size)
									switch {
									case bad == crossEnd:
										addr = buf.Base + 1024 + (uint64(l)-uint64(k))*uint64(size)
									case bad == none:
									case l == k:
										addr = bad
									}
									r[v+l] = 16 + uint64(l%3)*4
									if uni {
										r[v+l] = 16
									}
									r[u+l] = addr - r[v+l] - uint64(imm)
									r[d+l] = uint64(l) * 0x01010101
								}
								in := inst{op: op, fl: size, e: 1, gp: -1, d: d, a: a, imm: imm, aux2: spGlobal}
								run := func(general bool) (bool, [5 * 32]uint64, string, *fault) {
									fill()
									f := foldOp{u: u, v: v, uni: uni, pre: inst{op: opNop}}
									c := &cta{l: &Launch{Mem: e.mem, Host: e.host}, gc: make([]gcache, 3), pc: 2, p: &Program{foldOps: []foldOp{f}}}
									c.gc[2] = gcache{buf.Base, buf.Size, unsafe.Pointer(buf.ptr.Load()), false}
									w := &warp{id: 3, r: make([]uint64, len(r)), live: fullMask}
									if exited {
										w.exited = ^m // the run may cover these lanes (runRead)
									}
									copy(w.r, r[:])
									c.w = w
									var ok bool
									switch {
									case general:
										addrs(w.r, &in, &f)
										if op == opStGAdd {
											ok = c.st(w, &in, m)
										} else {
											ok = c.ld(w, &in, m)
										}
									case op == opStGAdd:
										ok = c.stGAdd(w, &in, m)
									default:
										ok = c.ldGAdd(w, &in, m)
									}
									var out [5 * 32]uint64
									copy(out[:], w.r)
									clear(out[a : a+32])
									return ok, out, snapshot(), c.fault
								}
								okF, rF, memF, fF := run(false)
								okG, rG, memG, fG := run(true)
								what := fmt.Sprintf("op %d size %d uni %v bad %#x lane %d mask %#x exited %v", op, size, uni, bad, k, m, exited)
								if exited && op == opLdGAdd {
									for l := range 32 { // an exited lane's destination is scratch
										if m&(1<<l) == 0 {
											rF[d+l], rG[d+l] = 0, 0
										}
									}
								}
								checked++
								if okF != okG || rF != rG {
									t.Fatalf("%s: fast path ok=%v, general ok=%v (registers equal: %v)", what, okF, okG, rF == rG)
								}
								if memF != memG {
									t.Fatalf("%s: memory differs from the general path's", what)
								}
								if (fF == nil) != (fG == nil) || fF != nil && *fF != *fG {
									t.Fatalf("%s: fault %+v, general path %+v", what, fF, fG)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases", checked)
}

// TestInWord: inWord's one compare is the bounds and alignment check of a
// 4-byte access it stands for, offsets near 0, near the end of the
// allocation and wrapped below it, for sizes that are and are not
// multiples of 4.
func TestInWord(t *testing.T) {
	for _, n := range []uint64{4, 5, 6, 7, 8, 1024, 1026, 1 << 40, maxRotN - 1, maxRotN} {
		offs := []uint64{0, 1, 2, 3, 4, 5, n - 8, n - 7, n - 6, n - 5, n - 4, n - 3, n - 2, n - 1, n, n + 1, n + 4, ^uint64(0), ^uint64(3), 1 << 62, 1 << 63, 3 << 62}
		for _, off := range offs {
			want := off <= n-4 && off&3 == 0
			if got := inWord(off, (n-4)>>2); got != want {
				t.Errorf("inWord(%#x) for %d bytes = %v, want %v", off, n, got, want)
			}
		}
	}
}
