package exec

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

// TestSpWGMMAReference: soft's sparse wgmma (f16 → f32, every layout and
// selector of the recorded random cases) agrees with a float64 reference
// (the metadata as spExpandModel reads it) to f32 rounding: the kernels,
// their inputs and soft's sparse path put every operand in its place.
func TestSpWGMMAReference(t *testing.T) {
	e := newEnv(t, Config{})
	n := 0
	// Under -race every fourth form; all of them in go test.
	for _, r := range softtest.Strided(spfitWGRecs(), softtest.Sample(4)) {
		f := r.f
		if r.probe || f.a != mtF16 || f.d != mtF32 || f.sel > 1 {
			continue
		}
		rf := r.recForm()
		got := runRecForm(e, rf, rf.In, rf.Grid)
		if got == nil {
			continue
		}
		s := newWGSpec(f.n, f.k(), f.a, f.b, f.d, f.d)
		K, N := f.k(), f.n
		for ci, c := range r.cases {
			A := f.denseA(c)
			out := got[ci*rf.OutSize:]
			for th := 0; th < 128; th++ {
				w, lane := th/32, th%32
				for e := 0; e < N/2; e++ {
					p := int(s.mma.maps[3][lane*N/2+e])
					i, j := 16*w+p/N, p%N
					want := 0.0
					if c.scaleD {
						want = f.d.toFloat(c.C[i*N+j])
					}
					sum, mag := 0.0, math.Abs(want)
					for k := 0; k < K; k++ {
						x := f.a.toFloat(A[i*K+k]) * f.b.toFloat(c.B[k*N+j])
						if f.negA != f.negB {
							x = -x
						}
						sum += x
						mag += math.Abs(x)
					}
					want += sum
					v := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*(th*N/2+e):])))
					if math.Abs(v-want) > mag*1e-5+1e-30 {
						t.Fatalf("%s case %d: D[%d][%d] = %g, reference %g", r.name(), ci, i, j, v, want)
					}
				}
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no sparse f16 wgmma form")
	}
	t.Logf("%d sparse wgmma forms agree with the reference", n)
}

// TestSpWGMMAMetadata: metadata that repeats a position stops a sparse
// wgmma with a message naming the lane; the same kernel with valid
// metadata runs.
func TestSpWGMMAMetadata(t *testing.T) {
	var rec *wgRec
	for _, r := range spfitWGRecs() {
		if r.f.a == mtF16 && r.f.d == mtF32 && r.f.n == 8 && !r.f.aDesc && !r.probe {
			rec = r
		}
	}
	if rec == nil {
		t.Fatal("no m64n8k32 f16 sparse wgmma form")
	}
	c := *rec.cases[0]
	f := rec.recForm()
	f.In = rec.f.pack(&c)
	f.Grid = 1
	e := newEnv(t, Config{})
	if _, err := runRecFormErr(e, f); err != nil {
		t.Fatalf("valid metadata: %v", err)
	}
	c.meta = append([]uint32(nil), c.meta...)
	c.meta[37] = 0x44444445 // warp 1, lane 5: chunk 0 holds positions 1 and 1
	f.In = rec.f.pack(&c)
	_, err := runRecFormErr(newEnv(t, Config{}), f)
	if err == nil || !strings.Contains(err.Error(), "wgmma.mma_async.sp: invalid sparsity metadata 0x5") || !strings.Contains(err.Error(), "lane 5") {
		t.Fatalf("repeated position in lane 5's metadata: got %v, want an invalid-metadata fault naming lane 5", err)
	}
}
