package ptx

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/cugen/cugen/parse/hostile"
)

// ParseChecked reports exactly Parse's errors and gives ParseHeaders'
// module.
func TestParseCheckedMatches(t *testing.T) {
	for _, c := range errorCases {
		_, want := Parse("e.ptx", []byte(c.src))
		m, err := ParseChecked("e.ptx", []byte(c.src))
		if m != nil || fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("ParseChecked(%q) = %v, Parse says %v", c.src, err, want)
		}
	}
	files, _ := filepath.Glob("testdata/*.ptx")
	more, _ := filepath.Glob("testdata/*/*.ptx")
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := ParseHeaders(f, src)
		if err != nil {
			t.Fatal(err)
		}
		chk, err := ParseChecked(f, src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !reflect.DeepEqual(hdr, chk) {
			t.Errorf("%s: ParseChecked's module differs from ParseHeaders'", f)
		}
	}
	// A statement error ParseHeaders does not see.
	bad := []byte(".version 9.0\n.target sm_90\n.entry k() {\n\tadd.u32 %r1 %r2;\n}\n")
	if _, err := ParseHeaders("b.ptx", bad); err != nil {
		t.Errorf("ParseHeaders: %v", err)
	}
	if _, err := ParseChecked("b.ptx", bad); err == nil || err.Error() != "b.ptx:4:14: expected ',' or ';' after operand, found '%r2'" {
		t.Errorf("ParseChecked: %v", err)
	}
}

// ParseBody gives each function the body Parse gives it, and Parse's
// errors, one function at a time.
func TestParseBodyMatches(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ptx")
	more, _ := filepath.Glob("testdata/*/*.ptx")
	bodies := 0
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := ParseHeaders(f, src)
		if err != nil {
			t.Fatal(err)
		}
		for i, fn := range hdr.Funcs {
			b, err := hdr.ParseBody(fn)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, fn.Name, err)
			}
			if !reflect.DeepEqual(b, full.Funcs[i].Body) {
				t.Errorf("%s: %s: ParseBody's body differs from Parse's", f, fn.Name)
			}
			bodies++
		}
	}
	if bodies < 50 {
		t.Errorf("only %d bodies compared", bodies)
	}
	// Register parameters named without '%' are registers in the body.
	src := []byte(".version 8.0\n.target sm_90\n.func (.reg .b32 r) f(.reg .b32 a)\n{\n\tadd.s32 r, a, 1;\n\tret;\n}\n")
	hdr, _ := ParseHeaders("r.ptx", src)
	if b, err := hdr.ParseBody(hdr.Funcs[0]); err != nil {
		t.Error(err)
	} else if in := b.Stmts[0].(*Instr); fmt.Sprintf("%T %T", in.Operands[0], in.Operands[1]) != "*ptx.Reg *ptx.Reg" {
		t.Errorf("operands %T %T", in.Operands[0], in.Operands[1])
	}
	// A statement error, at Parse's position.
	bad := []byte(".version 9.0\n.target sm_90\n.entry k() {\n\tret;\n}\n.entry j() {\n\tadd.u32 %r1 %r2;\n}\n")
	_, want := Parse("b.ptx", bad)
	hdr, err := ParseHeaders("b.ptx", bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hdr.ParseBody(hdr.Funcs[0]); err != nil {
		t.Errorf("the good body: %v", err)
	}
	if _, err := hdr.ParseBody(hdr.Funcs[1]); err == nil || err.Error() != want.Error() {
		t.Errorf("ParseBody: %v, Parse: %v", err, want)
	}
	// A function of another module is refused, not misread.
	other, _ := ParseHeaders("o.ptx", []byte(".version 8.0\n.target sm_90\n\n\n\n\n.entry o() { ret; }\n"))
	if _, err := hdr.ParseBody(other.Funcs[0]); err == nil {
		t.Error("a function of another module parsed")
	}
}

// A huge initializer is kept as its text: its elements come back from
// Elems and InitData as if each had a node.
func TestHugeInitializer(t *testing.T) {
	src := hostile.HugeInitPTX(4 << 20)
	var m *Module
	live := liveBytes(func() {
		var err error
		if m, err = Parse("i.ptx", src); err != nil {
			t.Fatal(err)
		}
	})
	if live > 2*uint64(len(src)) {
		t.Errorf("the tree of a %d-byte initializer holds %d bytes", len(src), live)
	}
	v := m.Vars[0]
	d, err := v.InitData()
	if err != nil {
		t.Fatal(err)
	}
	n := v.Elems()
	if len(d.Bytes) != n || d.Bytes[0] != 1 || d.Bytes[n-1] != byte(1+(n-1)%9) {
		t.Errorf("%d bytes of %d, ending %v", len(d.Bytes), n, d.Bytes[max(n-3, 0):])
	}
	i, col := 0, 0
	for e := range v.Init.Elems() {
		if i == 0 {
			col = e.Pos.Column
		}
		if e.Kind != InitInt || e.Int != uint64(1+i%9) || e.Pos.Column != col+2*i || e.Pos.Offset != col-1+2*i {
			t.Fatalf("element %d = %+v", i, e)
		}
		i++
	}
	if i != n {
		t.Errorf("Elems gave %d elements, want %d", i, n)
	}
}

// liveBytes is the heap f leaves reachable (what it allocated and still
// references after a collection).
func liveBytes(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if m1.HeapAlloc < m0.HeapAlloc {
		return 0
	}
	return m1.HeapAlloc - m0.HeapAlloc
}

// BenchmarkParseHuge parses 16 MB of PTX on one line, as dense as PTX gets
// (an add instruction every 23 bytes; an initializer element every 2),
// and reports per input byte what was allocated in all (alloc/B), the
// heap's peak above the start, sampled (peak/B), and what the result holds
// (live/B). cugen's model needs only ParseChecked.
func BenchmarkParseHuge(b *testing.B) {
	inputs := []struct {
		name string
		src  []byte
	}{{"instr", hostile.HugePTX(16 << 20)}, {"init", hostile.HugeInitPTX(16 << 20)}}
	for _, in := range inputs {
		for _, mode := range []struct {
			name  string
			parse func(string, []byte) (*Module, error)
		}{{"Parse", Parse}, {"ParseChecked", ParseChecked}, {"ParseHeaders", ParseHeaders}} {
			b.Run(in.name+"/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.src)))
				var alloc, peak, live uint64
				for b.Loop() {
					var m0, m1 runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&m0)
					var m *Module
					peak = max(peak, hostile.PeakHeap(func() {
						var err error
						if m, err = mode.parse("h.ptx", in.src); err != nil {
							b.Fatal(err)
						}
					}))
					runtime.ReadMemStats(&m1)
					alloc = m1.TotalAlloc - m0.TotalAlloc
					b.StopTimer()
					runtime.GC()
					var m2 runtime.MemStats
					runtime.ReadMemStats(&m2)
					live = m2.HeapAlloc - min(m0.HeapAlloc, m2.HeapAlloc)
					runtime.KeepAlive(m)
					b.StartTimer()
				}
				n := float64(len(in.src))
				b.ReportMetric(float64(alloc)/n, "alloc/B")
				b.ReportMetric(float64(peak)/n, "peak/B")
				b.ReportMetric(float64(live)/n, "live/B")
			})
		}
	}
}
