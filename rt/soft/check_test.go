package soft

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/loadcheck"
	"github.com/klauspost/compress/zstd"
)

const checkPTXText = `.version 8.0
.target sm_100
.address_size 64

.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.f32 	%f1, [%rd2];
	mul.f32 	%f2, %f1, %f1;
	st.global.f32 	[%rd2], %f2;
	ret;
}
`

// TestCheck: Check accepts what a load accepts, whatever the target, and
// rejects what a load rejects with the position and nothing else.
func TestCheck(t *testing.T) {
	if err := loadcheck.Check("k.ptx", []byte(checkPTXText)); err != nil {
		t.Errorf("a good module (for sm_100, above the default emulated sm_90): %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"mul.f32", "mul.ff32", "k.ptx:15:2: mul.ff32: modifier .ff32 is not supported"},
		{"mul.f32", "mulx.f32", "k.ptx:15:2: "},
		{".reg .b64", ".reg .b65", "k.ptx:"},
		{"ret;", "ret", "k.ptx:18:1: "}, // the grammar: a missing ';'
	} {
		bad := strings.Replace(checkPTXText, c.from, c.to, 1)
		err := loadcheck.Check("k.ptx", []byte(bad))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s → %s: error %v, want one starting %q", c.from, c.to, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "CUDA_ERROR") {
			t.Errorf("%s → %s: error %q carries the load's driver words", c.from, c.to, err)
		}
	}
	// Nothing rt/soft could run: nothing to check.
	if err := loadcheck.Check("x.cubin", append([]byte("\x7fELF"), make([]byte, 60)...)); err != nil {
		t.Errorf("a cubin: %v", err)
	}
}

// TestCheckFatbin: each PTX entry of a fatbin is checked, named after the
// fatbin and the entry's target.
func TestCheckFatbin(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(fatbinTestdata, "b.speedall.fatbin")) // sm_90 SASS and compressed compute_90 PTX
	if err != nil {
		t.Fatal(err)
	}
	if err := loadcheck.Check("b.fatbin", src); err != nil {
		t.Fatalf("a good fatbin: %v", err)
	}
	good := ptxEntry([]byte(checkPTXText), 75)
	bad := ptxEntry([]byte(strings.Replace(checkPTXText, "ret;", "rex;", 1)), 90)
	if err := loadcheck.Check("k.fatbin", fatbin.Build([]*fatbin.Entry{good})); err != nil {
		t.Errorf("a fatbin of good PTX: %v", err)
	}
	err = loadcheck.Check("k.fatbin", fatbin.Build([]*fatbin.Entry{good, bad}))
	if want := "k.fatbin[compute_90]:17:2: rex: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a fatbin with an unknown instruction in one PTX entry: %v, want an error starting %q", err, want)
	}
}

// TestCheckMatchesLoad: Check, which holds one kernel's statements at a
// time, accepts what a load accepts and reports what a load reports, at
// the same position: over nvcc's modules, and over each with one
// instruction spoiled (a modifier no decoder knows, in kernels and in the
// device functions they call) or one statement cut short.
func TestCheckMatchesLoad(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ptx")
	if len(files) < 5 {
		t.Fatalf("%d modules", len(files))
	}
	load := func(name string, src []byte) string {
		d := New(Options{ComputeCapability: 1 << 20})
		h, err := d.LibraryLoad(src, rt.LoadOptions{Name: name})
		if err != nil {
			var re *rt.Error
			if errors.As(err, &re) {
				return re.Detail
			}
			return err.Error()
		}
		d.LibraryUnload(h)
		return ""
	}
	check := func(name string, src []byte) string {
		if err := loadcheck.Check(name, src); err != nil {
			return err.Error()
		}
		return ""
	}
	instr := regexp.MustCompile(`(?m)^\t(@%p\d+ )?([a-z]+)((\.[a-z0-9]+)*)[ \t]`)
	spoiled, failed := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if got, want := check(name, src), load(name, src); got != "" || want != "" {
			t.Fatalf("%s: Check %q, load %q", f, got, want)
		}
		ms := instr.FindAllSubmatchIndex(src, -1)
		for i := 0; i < len(ms); i += max(len(ms)/25, 1) {
			m := ms[i]
			for _, bad := range [][]byte{
				slices.Concat(src[:m[5]], []byte(".qq"), src[m[5]:]),                                   // a modifier no one knows
				slices.Concat(src[:m[5]], []byte(" ;"), src[bytes.IndexByte(src[m[5]:], ';')+m[5]+1:]), // operands cut
			} {
				got, want := check(name, bad), load(name, bad)
				if got != want {
					t.Errorf("%s, instruction at offset %d spoiled: Check %q, load %q", f, m[0], got, want)
				}
				spoiled++
				if want != "" {
					failed++
				}
			}
		}
	}
	t.Logf("%d spoiled modules, %d failing to load", spoiled, failed)
	if spoiled < 100 || failed < spoiled/2 {
		t.Errorf("%d modules spoiled, %d failing to load: too few", spoiled, failed)
	}
}

// An indirect call reaches every function whose address the module takes:
// here only a later kernel takes twice's, and a load decodes twice (and
// its unknown modifier) into the calling kernel. Check, which holds one
// kernel at a time, must find that address first.
const checkIndirectPTX = `.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry caller(.param .u64 out)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	ld.global.u64 %rd2, [%rd1];
	{
	.param .b32 param0;
	st.param.b32 [param0+0], 21;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd2, (param0), prototype_0;
	ld.param.b32 %r2, [retval0+0];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}
.visible .entry taker(.param .u64 out)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, twice;
	st.global.u64 [%rd1], %rd2;
	ret;
}
`

func TestCheckIndirectCall(t *testing.T) {
	if err := loadcheck.Check("ind.ptx", []byte(checkIndirectPTX)); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(checkIndirectPTX, "add.s32", "add.qq.s32", 1)
	d := New(Options{})
	_, want := d.LibraryLoad([]byte(bad), rt.LoadOptions{Name: "ind.ptx"})
	var re *rt.Error
	if !errors.As(want, &re) || !strings.HasPrefix(re.Detail, "ind.ptx:8:2: ") {
		t.Fatalf("the load: %v", want)
	}
	if err := loadcheck.Check("ind.ptx", []byte(bad)); err == nil || err.Error() != re.Detail {
		t.Errorf("Check: %v, the load: %s", err, re.Detail)
	}
}

// TestCheckHoldsOneKernel: Check of a module of many kernels holds the
// statements and program of one at a time. 8 MB of dense PTX in kernels of
// 64 KB peaks at about 2 bytes per input byte; a load, which keeps them all,
// at about 40. (BenchmarkHugePTX in gen/pipeline has the figures.)
func TestCheckHoldsOneKernel(t *testing.T) {
	src := hostile.HugeKernelsPTX(8<<20, 64<<10)
	var err error
	peak := hostile.PeakHeap(func() { err = loadcheck.Check("h.ptx", src) })
	if err != nil {
		t.Fatal(err)
	}
	if perByte := float64(peak) / float64(len(src)); perByte > 8 {
		t.Errorf("Check of %d bytes of PTX in kernels of 64 KB peaked at %d bytes of heap, %.1f per input byte", len(src), peak, perByte)
	}
}

// TestCheckBudget: a fatbin's compressed PTX is decompressed within the
// budget given, and released after its check.
func TestCheckBudget(t *testing.T) {
	text := []byte(checkPTXText + "// " + strings.Repeat("x", 1<<20) + "\n")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	fb := hostile.Fatbin(hostile.Entry(hostile.KindPTX, 90, hostile.FlagZstd, enc.EncodeAll(text, nil), uint64(len(text))))
	b := fatbin.NewBudget(2 << 20)
	if err := loadcheck.CheckBudget("z.fatbin", fb, b); err != nil {
		t.Fatal(err)
	}
	if b.Peak() != int64(len(text)) || b.InUse() != 0 {
		t.Errorf("peak %d (the entry is %d bytes), %d still in use", b.Peak(), len(text), b.InUse())
	}
	err = loadcheck.CheckBudget("z.fatbin", fb, fatbin.NewBudget(1<<20))
	if !errors.Is(err, fatbin.ErrBudget) || !strings.Contains(err.Error(), "z.fatbin: entry compute_90 at offset 0x10: ") {
		t.Errorf("a budget smaller than the entry: %v", err)
	}
}

// ptxEntry is a fatbin entry of uncompressed PTX for compute_arch.
func ptxEntry(text []byte, arch uint32) *fatbin.Entry {
	payload := append(bytes.Clone(text), make([]byte, 8-len(text)%8)...)
	raw := make([]byte, fatbin.EntryHeaderSize, fatbin.EntryHeaderSize+len(payload))
	le := binary.LittleEndian
	le.PutUint16(raw[0x00:], uint16(fatbin.KindPTX))
	le.PutUint16(raw[0x02:], 0x0101)
	le.PutUint32(raw[0x04:], fatbin.EntryHeaderSize)
	le.PutUint64(raw[0x08:], uint64(len(payload)))
	le.PutUint16(raw[0x18:], 0)
	le.PutUint16(raw[0x1a:], 8)
	le.PutUint32(raw[0x1c:], arch)
	return &fatbin.Entry{Raw: append(raw, payload...)}
}
