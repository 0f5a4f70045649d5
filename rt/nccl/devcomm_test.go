package nccl_test

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/nccl/internal/devtest"
)

// readDevComm launches devtest's readDevComm with d on s: what the kernel
// reads of the communicator (rank, nRanks, lsaRank, lsaSize, the world
// team's size and rank) and the parameter's bytes.
func readDevComm(t testing.TB, ctx *rt.Context, s *rt.Stream, d nccl.DevComm) ([]int32, []byte) {
	t.Helper()
	info, err := rt.Alloc[int32](ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	defer info.Free()
	raw, err := rt.Alloc[uint8](ctx, nccl.DevCommSize)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Free()
	if err := devtest.ReadDevComm(rt.Linear(32, 32).On(s), d, info.Ptr, raw.Ptr); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	return host(t, info), host(t, raw)
}

// bytesOf is d's memory.
func bytesOf(d *nccl.DevComm) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(d)), nccl.DevCommSize)
}

// A kernel taking ncclDevComm by value reads what the soft engine's
// DevComm holds; every byte of a hand-made one reaches it where the
// header puts it.
func TestDevCommKernel(t *testing.T) {
	r := newRanks(t, 3, nil)
	dcs, err := nccl.DevCommAll(r.comms, nil)
	if err != nil {
		t.Fatal(err)
	}
	for q := range r.comms {
		info, raw := readDevComm(t, r.ctxs[q], r.ss[q], dcs[q])
		if want := []int32{int32(q), 3, 0, 1, 3, int32(q)}; !slices.Equal(info, want) {
			t.Errorf("rank %d: the kernel read %v, want %v", q, info, want)
		}
		if !slices.Equal(raw, bytesOf(&dcs[q])) {
			t.Errorf("rank %d: the kernel's bytes %x, DevComm's %x", q, raw, bytesOf(&dcs[q]))
		}
	}
	var d nccl.DevComm
	for i := range nccl.DevCommSize {
		bytesOf(&d)[i] = byte(i*7 + 1)
	}
	info, raw := readDevComm(t, r.ctxs[0], r.ss[0], d)
	if !slices.Equal(raw, bytesOf(&d)) || info[0] != int32(d.Rank()) || info[1] != int32(d.NRanks()) || info[2] != int32(d.LsaRank()) || info[3] != int32(d.LsaSize()) {
		t.Errorf("the kernel read %v and %x of %x", info, raw, bytesOf(&d))
	}

	// The C-linkage kernel, typed through the source's ncclDevComm_t.
	x := upload(t, r, 4, func(q, i int) float32 { return float32(3 * i) })
	if err := devtest.ScaleByRanks(rt.Linear(4, 32).On(r.ss[1]), dcs[1], x[1].Ptr, 4); err != nil {
		t.Fatal(err)
	}
	r.ss[1].Synchronize()
	if got := host(t, x[1]); !slices.Equal(got, []float32{0, 1, 2, 3}) {
		t.Errorf("scaleByRanks: %v", got)
	}
}
