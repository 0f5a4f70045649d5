package soft

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/tensormap"
)

// The PTX ISA 8.x forms of exec (gpumath's fp8.go, video.go and tensormap_replace.go), and
// probes of forms that sm_90 may or may not have, replayed against what the
// H100 computed (testdata/isa8.json.gz). Each case is a PTX snippet over
// inputs %a0.. and one output %d0, run by one thread per row over rows that
// the case's generator makes from a seed (exhaustive where the input has 16
// bits or fewer). The recording holds, per case, the H100's output bits, or
// the error with which the driver's JIT refused the snippet for the target;
// soft must then refuse it too. Record on the GPU machine with
//
//	go test -tags cudarecord -c -o isa8.test ./rt/soft
//	./isa8.test -test.run TestISA8 -isa8.record=isa8.json.gz
var isa8Record = flag.String("isa8.record", "", "run the ISA 8.x cases on the recording backend and write what it computed to this file")

type isaCase struct {
	name   string // the snippet, unique
	in     []string
	out    string
	target string // default sm_90
	rows   func(r *rand.Rand) [][]uint64
	tmap   bool // tensormap.replace: the output is the 128-byte map at %m
	shared bool // … in shared memory
}

type isaRecord struct {
	Device string         `json:"device"`
	Cases  []isaRecording `json:"cases"`
}

type isaRecording struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	Rows   int    `json:"rows"`
	InHash string `json:"in_sha256"`
	Err    string `json:"err,omitempty"`
	// The outputs, little-endian, out-width each (128 bytes for maps):
	// all of them (base64) where they take at most 256 bytes or are maps,
	// else their SHA-256 and every 61st row (base64) to show what differs.
	Out    string `json:"out,omitempty"`
	OutSHA string `json:"out_sha256,omitempty"`
	Sample string `json:"sample,omitempty"`
	Map    string `json:"map,omitempty"` // tensormap cases: the map every row started from, hex
}

func outBytes(c *isaCase) int {
	if c.tmap {
		return 128
	}
	switch c.out {
	case "b16":
		return 2
	case "b64":
		return 8
	}
	return 4
}

// isaKernel wraps the snippet into t(in, out, n).
func isaKernel(c *isaCase) string {
	var b strings.Builder
	tg := c.target
	if tg == "" {
		tg = "sm_90"
	}
	fmt.Fprintf(&b, ".version 8.7\n.target %s\n.address_size 64\n", tg)
	if c.shared {
		b.WriteString(".shared .align 128 .b8 smap[8192];\n")
	}
	b.WriteString(".visible .entry t(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n")
	b.WriteString("\t.reg .b64 %rdi, %rdo, %rdt, %m, %q0, %q1;\n\t.reg .b32 %rt, %rn, %r1, %r2, %t0, %t1;\n\t.reg .b16 %h0, %h1;\n\t.reg .pred %pq;\n")
	for i, t := range c.in {
		fmt.Fprintf(&b, "\t.reg .%s %%a%d;\n", t, i)
	}
	if !c.tmap {
		fmt.Fprintf(&b, "\t.reg .%s %%d0;\n", c.out)
	}
	b.WriteString("\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %rt, %tid.x;\n\tmad.lo.u32 %rt, %r1, %r2, %rt;\n")
	b.WriteString("\tld.param.u32 %rn, [pn];\n\tsetp.ge.u32 %pq, %rt, %rn;\n\t@%pq bra DONE;\n")
	b.WriteString("\tld.param.u64 %rdi, [pin];\n\tld.param.u64 %rdo, [pout];\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rdt, %%rt, %d;\n\tadd.s64 %%rdi, %%rdi, %%rdt;\n", 8*max(len(c.in), 1))
	fmt.Fprintf(&b, "\tmul.wide.u32 %%rdt, %%rt, %d;\n\tadd.s64 %%rdo, %%rdo, %%rdt;\n", (outBytes(c)+7)/8*8)
	for i, t := range c.in {
		fmt.Fprintf(&b, "\tld.global.%s %%a%d, [%%rdi+%d];\n", t, i, 8*i)
	}
	if c.tmap {
		if c.shared {
			// Each thread's map in its own 128 bytes of shared memory.
			b.WriteString("\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rdt, %r2, 128;\n\tmov.u64 %m, smap;\n\tadd.s64 %m, %m, %rdt;\n")
			for i := 0; i < 128; i += 16 {
				fmt.Fprintf(&b, "\tld.global.v2.b64 {%%q0, %%q1}, [%%rdo+%d];\n\tst.shared.v2.b64 [%%m+%d], {%%q0, %%q1};\n", i, i)
			}
		} else {
			b.WriteString("\tmov.u64 %m, %rdo;\n")
		}
	}
	b.WriteString("\t" + strings.ReplaceAll(c.name, "; ", ";\n\t") + "\n")
	if c.tmap {
		if c.shared {
			for i := 0; i < 128; i += 16 {
				fmt.Fprintf(&b, "\tld.shared.v2.b64 {%%q0, %%q1}, [%%m+%d];\n\tst.global.v2.b64 [%%rdo+%d], {%%q0, %%q1};\n", i, i)
			}
		}
	} else {
		fmt.Fprintf(&b, "\tst.global.%s [%%rdo], %%d0;\n", c.out)
	}
	b.WriteString("DONE:\n\tret;\n}\n")
	return b.String()
}

func isaRand(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

func isaInputs(c *isaCase) ([]uint64, int, string) {
	rows := c.rows(isaRand(c.name))
	nin := max(len(c.in), 1)
	in := make([]uint64, len(rows)*nin)
	for i, r := range rows {
		copy(in[i*nin:], r)
	}
	sum := sha256.Sum256(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(in))), len(in)*8))
	return in, len(rows), hex.EncodeToString(sum[:16])
}

// isaMap is the map the tensormap cases start from, encoded by d.
func isaMap(t *testing.T, d rt.Driver, addr rt.DevPtr) [128]byte {
	m, err := tensormap.EncodeTiled(d, tensormap.Tiled{DataType: tensormap.Float32, Addr: uint64(addr),
		Dims: []uint64{64, 32, 8}, Strides: []uint64{256, 8192}, Box: []uint32{32, 8, 2}, ElementStrides: []uint32{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

// runISA runs c on d; the load error, or the outputs.
func runISA(t *testing.T, d rt.Driver, ctx rt.CtxHandle, c *isaCase, in []uint64, n int, m0 []byte) ([]byte, error) {
	lib, err := d.LibraryLoad([]byte(isaKernel(c)), rt.LoadOptions{Name: "isa8.ptx"})
	if err != nil {
		return nil, err
	}
	defer d.LibraryUnload(lib)
	k, err := d.LibraryKernel(lib, "t")
	if err != nil {
		return nil, err
	}
	ob := outBytes(c)
	slot := (ob + 7) / 8 * 8
	pin, err := d.MemAlloc(ctx, uint64(8*len(in)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.MemFree(ctx, pin)
	pout, err := d.MemAlloc(ctx, uint64(slot*n))
	if err != nil {
		t.Fatal(err)
	}
	defer d.MemFree(ctx, pout)
	if err := d.MemcpyHtoD(ctx, pin, unsafe.Pointer(&in[0]), uint64(8*len(in)), 0, false); err != nil {
		t.Fatal(err)
	}
	init := make([]byte, slot*n)
	for i := 0; c.tmap && i < n; i++ {
		copy(init[i*128:], m0)
	}
	if err := d.MemcpyHtoD(ctx, pout, unsafe.Pointer(&init[0]), uint64(len(init)), 0, false); err != nil {
		t.Fatal(err)
	}
	block := 256
	if c.shared {
		block = 64
	}
	p := params(pin, pout, n)
	if err := d.Launch(k, rt.LaunchArgs{Ctx: ctx, Grid: rt.D1((n + block - 1) / block), Block: rt.D1(block), Params: unsafe.Pointer(&p[0]), ParamSize: uintptr(len(p))}); err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	if err := d.CtxSynchronize(ctx); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	out := make([]byte, slot*n)
	if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&out[0]), pout, uint64(len(out)), 0, false); err != nil {
		t.Fatal(err)
	}
	res := make([]byte, 0, ob*n)
	for i := 0; i < n; i++ {
		res = append(res, out[i*slot:i*slot+ob]...)
	}
	return res, nil
}

func TestISA8(t *testing.T) {
	cases := isaCases()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("case %q twice", c.name)
		}
		seen[c.name] = true
	}
	if *isa8Record != "" {
		recordISA8(t, cases)
		return
	}
	rec := readISA8(t)
	d := New(Options{Deterministic: true})
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	stats := map[string][2]int{}
	// Under -race every eighth snippet; all of them in go test.
	for _, c := range softtest.Strided(cases, softtest.Sample(8)) {
		r, ok := rec[c.name]
		if !ok {
			t.Errorf("%s: not recorded", c.name)
			continue
		}
		in, n, h := isaInputs(c)
		if h != r.InHash || n != r.Rows {
			t.Errorf("%s: the generator's inputs (%d rows, %s) are not the recorded ones (%d rows, %s)", c.name, n, h, r.Rows, r.InHash)
			continue
		}
		var m0 []byte
		if c.tmap {
			m0, _ = hex.DecodeString(r.Map)
		}
		got, err := runISA(t, d, ctx, c, in, n, m0)
		if strings.HasPrefix(r.Err, "launch") || strings.HasPrefix(r.Err, "sync") {
			t.Logf("%s: faulted on the H100 (%s); not compared", c.name, r.Err)
			continue
		}
		if r.Err != "" {
			if err == nil {
				t.Errorf("%s: the H100's JIT refused it (%s), soft runs it", c.name, firstLine(r.Err))
			} else if !strings.Contains(err.Error(), "isa8.ptx:") {
				t.Errorf("%s: soft's refusal names no file:line: %v", c.name, err)
			}
			stats["refused (as on the H100)"] = [2]int{stats["refused (as on the H100)"][0] + 1, 0}
			continue
		}
		if err != nil && softRefuses(c.name) && strings.Contains(err.Error(), "isa8.ptx:") {
			stats["refused by soft (not reproduced)"] = [2]int{stats["refused by soft (not reproduced)"][0] + 1, 0}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if softRefuses(c.name) {
			t.Errorf("%s: soft should refuse this form, and runs it", c.name)
		}
		ob := outBytes(c)
		nin := max(len(c.in), 1)
		bad := 0
		compare := func(rows []int, want []byte) {
			for j, i := range rows {
				g, w := got[i*ob:(i+1)*ob], want[j*ob:(j+1)*ob]
				if !bytes.Equal(g, w) {
					if bad < 4 {
						t.Errorf("%s: row %d (in %x): soft %x, H100 %x", c.name, i, in[i*nin:(i+1)*nin], g, w)
					}
					bad++
				}
			}
		}
		if r.OutSHA != "" {
			sum := sha256.Sum256(got)
			if hex.EncodeToString(sum[:]) != r.OutSHA {
				want, _ := base64.StdEncoding.DecodeString(r.Sample)
				compare(sampleRows(n), want)
				t.Errorf("%s: the %d rows' digest differs from the H100's (%d of the %d sampled rows differ)", c.name, n, bad, len(sampleRows(n)))
				bad = max(bad, 1)
			}
		} else {
			want, _ := base64.StdEncoding.DecodeString(r.Out)
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			compare(all, want)
			if bad > 0 {
				t.Errorf("%s: %d of %d rows differ", c.name, bad, n)
			}
		}
		if bad > 0 {
			bad = n // a digest only says that something differs
		}
		fam := isaFamily(c.name)
		s := stats[fam]
		stats[fam] = [2]int{s[0] + 1, s[1] + n - bad}
	}
	var fams []string
	for f := range stats {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		t.Logf("%-40s %4d forms, %8d rows bit-exact", f, stats[f][0], stats[f][1])
	}
}

// softRefusals are the forms that the H100 runs and soft refuses, with
// the reason (a substring of its error). None now: soft reproduces every
// recorded scalar video form (video.go), the last ones it refused.
var softRefusals = []struct{ re, why string }{}

func softRefuses(name string) bool {
	for _, r := range softRefusals {
		if regexp.MustCompile(r.re).MatchString(name) {
			return true
		}
	}
	return false
}

// sampleRows are the rows a digested recording keeps.
func sampleRows(n int) []int {
	var s []int
	for i := 0; i < n; i += 61 {
		s = append(s, i)
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isaFamily is the opcode and the modifiers that name a family of forms.
func isaFamily(name string) string {
	f := strings.Fields(name)[0]
	if strings.HasPrefix(f, "{") {
		f = strings.Fields(name)[2]
		b128 := ""
		for _, g := range strings.Fields(name) {
			if strings.HasPrefix(g, "set.") {
				f = g // set combined with a predicate made from %a2
			}
			if strings.HasSuffix(g, ".b128") && g != ".b128" && (b128 == "" || b128 == "mov.b128") {
				b128 = g // the first .b128 instruction other than mov, else mov
			}
		}
		if b128 != "" {
			f = b128
		}
	}
	p := strings.Split(f, ".")
	switch p[0] {
	case "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset":
		return "scalar video " + p[0]
	case "tensormap":
		return "tensormap.replace." + p[3]
	}
	return f
}

func recordISA8(t *testing.T, cases []*isaCase) {
	d, err := rt.Open(recordBackend)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	name, _ := d.DeviceName(0)
	out := isaRecord{Device: name}
	// The map's tensor: any 16-byte aligned address will do.
	buf, err := d.MemAlloc(ctx, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	m0 := isaMap(t, d, buf)
	nerr := 0
	for _, c := range cases {
		in, n, h := isaInputs(c)
		r := isaRecording{Name: c.name, Target: c.target, Rows: n, InHash: h}
		if c.tmap {
			r.Map = hex.EncodeToString(m0[:])
		}
		got, err := runISA(t, d, ctx, c, in, n, m0[:])
		if err != nil {
			r.Err = err.Error()
			nerr++
			fmt.Printf("REFUSED %s: %s\n", c.name, firstLine(r.Err))
			if strings.HasPrefix(r.Err, "launch") || strings.HasPrefix(r.Err, "sync") {
				// A fault is sticky: start a fresh primary context.
				d.PrimaryCtxRelease(0)
				if ctx, err = d.PrimaryCtxRetain(0); err != nil {
					t.Fatal(err)
				}
				if buf, err = d.MemAlloc(ctx, 1<<16); err != nil {
					t.Fatal(err)
				}
				m0 = isaMap(t, d, buf)
			}
		} else if len(got) <= 256 || c.tmap {
			r.Out = base64.StdEncoding.EncodeToString(got)
		} else {
			sum := sha256.Sum256(got)
			r.OutSHA = hex.EncodeToString(sum[:])
			var s []byte
			ob := outBytes(c)
			for _, i := range sampleRows(n) {
				s = append(s, got[i*ob:(i+1)*ob]...)
			}
			r.Sample = base64.StdEncoding.EncodeToString(s)
		}
		out.Cases = append(out.Cases, r)
	}
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	js, _ := json.Marshal(out)
	z.Write(js)
	z.Close()
	if err := os.WriteFile(*isa8Record, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("recorded %d cases (%d refused) on %s: %d bytes\n", len(cases), nerr, name, b.Len())
}

func readISA8(t *testing.T) map[string]isaRecording {
	b, err := readTestdata("isa8.json.gz")
	if f := os.Getenv("CUGEN_ISA8_FULL"); f != "" {
		// A recording with every row, for working on a difference.
		b, err = os.ReadFile(f)
	}
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	var rec isaRecord
	if err := json.Unmarshal(js, &rec); err != nil {
		t.Fatal(err)
	}
	m := map[string]isaRecording{}
	for _, r := range rec.Cases {
		m[r.Name] = r
	}
	return m
}

// Input generators.

func exhaustive(n int, f func(i uint64) []uint64) func(*rand.Rand) [][]uint64 {
	return func(*rand.Rand) [][]uint64 {
		rows := make([][]uint64, n)
		for i := range rows {
			rows[i] = f(uint64(i))
		}
		return rows
	}
}

func randRows(n int, gens ...func(r *rand.Rand) uint64) func(*rand.Rand) [][]uint64 {
	return func(r *rand.Rand) [][]uint64 {
		rows := make([][]uint64, n)
		for i := range rows {
			for _, g := range gens {
				rows[i] = append(rows[i], g(r))
			}
		}
		return rows
	}
}

var f32Specials = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, 0xffffffff,
	0x00000001, 0x007fffff, 0x00800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff,
	math.Float32bits(448), math.Float32bits(464), math.Float32bits(464.0001), math.Float32bits(480), math.Float32bits(-448),
	math.Float32bits(57344), math.Float32bits(61440), math.Float32bits(61439), math.Float32bits(65536), math.Float32bits(-57344),
	math.Float32bits(0x1p-6), math.Float32bits(0x1p-9), math.Float32bits(0x1p-10), math.Float32bits(0x1.8p-10),
	math.Float32bits(0x1p-14), math.Float32bits(0x1p-16), math.Float32bits(0x1p-17), math.Float32bits(0x1.8p-17),
	math.Float32bits(65504), math.Float32bits(65520), math.Float32bits(65519.99), math.Float32bits(0x1p-24), math.Float32bits(0x1p-25),
	math.Float32bits(0x1.000002p-25), math.Float32bits(-0x1p-25), math.Float32bits(0x1.fep127)}

// f32Gen: specials, values near the fp8 and f16 ranges, random bits.
func f32Gen(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return uint64(f32Specials[r.IntN(len(f32Specials))])
	case 1, 2:
		e := r.IntN(50) - 30 // 2^-30 .. 2^19
		m := r.Uint32() & 0x7fffff
		if r.IntN(3) == 0 {
			m &= 0x7f0000 | uint32(r.IntN(2))<<15 // ties and near-ties for 3- and 2-bit mantissas
			m |= uint32(r.IntN(2)) * (r.Uint32() & 0xff)
		}
		return uint64(uint32(r.IntN(2))<<31 | uint32(e+127)<<23 | m)
	}
	return uint64(r.Uint32())
}

var halfSpecials = []uint16{0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7fff, 0xffff, 0x0001, 0x03ff, 0x0400,
	0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x5f00, 0x5f40, 0x5f80, 0x7b00, 0x7b80, 0x3555, 0x0200}
var bhalfSpecials = []uint16{0, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x7fff, 0xffff, 0x0001, 0x007f, 0x0080,
	0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x43e0, 0x4760, 0x4770, 0x3eab}

func halfGen(bf bool) func(r *rand.Rand) uint16 {
	sp := halfSpecials
	if bf {
		sp = bhalfSpecials
	}
	return func(r *rand.Rand) uint16 {
		switch r.IntN(4) {
		case 0:
			return sp[r.IntN(len(sp))]
		case 1:
			return uint16(r.Uint32()) & 0x83ff // subnormals
		case 2:
			if bf {
				return uint16(r.IntN(2))<<15 | uint16(120+r.IntN(16))<<7 | uint16(r.IntN(128))
			}
			return uint16(r.IntN(2))<<15 | uint16(10+r.IntN(12))<<10 | uint16(r.IntN(1024))
		}
		return uint16(r.Uint32())
	}
}

func h16(bf bool) func(r *rand.Rand) uint64 {
	g := halfGen(bf)
	return func(r *rand.Rand) uint64 { return uint64(g(r)) }
}

func h32(bf bool) func(r *rand.Rand) uint64 {
	g := halfGen(bf)
	return func(r *rand.Rand) uint64 { return uint64(g(r)) | uint64(g(r))<<16 }
}

// halfPairRows: pairs of packed halves from halfGen, a quarter of them
// with one half of b equal to a's and an eighth equal in both, or
// differing only in the sign of a zero.
func halfPairRows(n int, bf bool) func(*rand.Rand) [][]uint64 {
	g := h32(bf)
	return func(r *rand.Rand) [][]uint64 {
		rows := make([][]uint64, n)
		for i := range rows {
			a, b := g(r), g(r)
			switch r.IntN(8) {
			case 0:
				b = b&^0xffff | a&0xffff
			case 1:
				b = b&0xffff | a&^0xffff
			case 2:
				b = a
			case 3:
				a &= 0x80008000
				v := uint64(r.IntN(4))
				b = a ^ (v&1<<15 | v>>1<<31)
			}
			rows[i] = []uint64{a, b}
		}
		return rows
	}
}

var intSpecials = []uint32{0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x7f, 0x80, 0xff, 0x100, 0xffffff80, 0xffffff7f,
	0x7fff, 0x8000, 0xffff, 0x10000, 0xffff8000, 0xffff7fff, 1, 2, 3, 4, 7, 8, 15, 16, 0xfffffffe, 0xfffffff8, 0xfffffff7, 0xfffffffd}

// i32Gen: boundary values, small values, random words.
func i32Gen(r *rand.Rand) uint64 {
	switch r.IntN(3) {
	case 0:
		return uint64(intSpecials[r.IntN(len(intSpecials))])
	case 1:
		return uint64(uint32(int32(r.IntN(1200) - 600)))
	}
	return uint64(r.Uint32())
}

// byteGen: words whose bytes are boundary values or random.
func byteGen(r *rand.Rand) uint64 {
	bs := []byte{0, 1, 0x7f, 0x80, 0x81, 0xff, 0xfe, 0x7e}
	var v uint64
	for i := 0; i < 4; i++ {
		var b byte
		if r.IntN(2) == 0 {
			b = bs[r.IntN(len(bs))]
		} else {
			b = byte(r.Uint32())
		}
		v |= uint64(b) << (8 * i)
	}
	if r.IntN(8) == 0 {
		v = uint64(intSpecials[r.IntN(len(intSpecials))])
	}
	return v
}

// shiftGen: shift amounts, small in every lane, sometimes large.
func shiftGen(r *rand.Rand) uint64 {
	var v uint64
	for i := 0; i < 4; i++ {
		b := uint64(r.IntN(40))
		if r.IntN(6) == 0 {
			b = uint64(r.Uint32() & 0xff)
		}
		v |= b << (8 * i)
	}
	return v
}

func isaCases() []*isaCase {
	var cs []*isaCase
	add := func(c *isaCase) { cs = append(cs, c) }

	// fp8 conversions.
	for _, ty := range []string{"e4m3x2", "e5m2x2"} {
		for _, relu := range []string{"", ".relu"} {
			add(&isaCase{name: "cvt.rn.satfinite" + relu + "." + ty + ".f32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b16",
				rows: randRows(16384, f32Gen, f32Gen)})
			add(&isaCase{name: "cvt.rn" + relu + "." + ty + ".f32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b16",
				rows: randRows(64, f32Gen, f32Gen)})
			add(&isaCase{name: "cvt.rn.satfinite" + relu + "." + ty + ".f16x2 %d0, %a0;", in: []string{"b32"}, out: "b16",
				rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i | (i*0x9e37+0x1234)&0xffff<<16} })})
			add(&isaCase{name: "cvt.rn" + relu + ".f16x2." + ty + " %d0, %a0;", in: []string{"b16"}, out: "b32",
				rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
			// Probes: sources and destinations sm_90 may lack.
			add(&isaCase{name: "cvt.rn.satfinite" + relu + "." + ty + ".bf16x2 %d0, %a0;", in: []string{"b32"}, out: "b16",
				rows: randRows(64, h32(true))})
			add(&isaCase{name: "cvt.rn" + relu + ".bf16x2." + ty + " %d0, %a0;", in: []string{"b16"}, out: "b32",
				rows: exhaustive(256, func(i uint64) []uint64 { return []uint64{i * 0x101} })})
		}
	}

	// cvt.pack.sat.
	for _, ty := range []string{"u16", "s16"} {
		add(&isaCase{name: "cvt.pack.sat." + ty + ".s32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32",
			rows: randRows(4096, i32Gen, i32Gen)})
	}
	for _, ty := range []string{"u8", "s8", "u4", "s4", "u2", "s2"} {
		add(&isaCase{name: "cvt.pack.sat." + ty + ".s32.b32 %d0, %a0, %a1, %a2;", in: []string{"b32", "b32", "b32"}, out: "b32",
			rows: randRows(4096, i32Gen, i32Gen, i32Gen)})
	}

	// .relu, .oob, .satfinite on half-precision arithmetic and conversions.
	for _, h := range []struct {
		t  string
		bf bool
		w  string
	}{{"f16", false, "b16"}, {"f16x2", false, "b32"}, {"bf16", true, "b16"}, {"bf16x2", true, "b32"}} {
		g := h16(h.bf)
		if h.w == "b32" {
			g = h32(h.bf)
		}
		three := []string{h.w, h.w, h.w}
		two := three[:2]
		fmas := []string{"fma.rn.relu.", "fma.rn.oob.", "fma.rn.oob.relu."}
		if !h.bf {
			fmas = append(fmas, "fma.rn.ftz.relu.", "fma.rn.sat.")
		}
		for _, f := range fmas {
			add(&isaCase{name: f + h.t + " %d0, %a0, %a1, %a2;", in: three, out: h.w, rows: randRows(4096, g, g, g)})
		}
		mins := []string{".xorsign.abs.", ".NaN.xorsign.abs.", ".relu."}
		if !h.bf {
			mins = append(mins, ".ftz.xorsign.abs.", ".ftz.NaN.xorsign.abs.")
		}
		for _, op := range []string{"min", "max"} {
			for _, md := range mins {
				add(&isaCase{name: op + md + h.t + " %d0, %a0, %a1;", in: two, out: h.w, rows: randRows(4096, g, g)})
			}
		}
	}
	for _, ty := range []string{"f16", "bf16"} {
		for _, md := range []string{"rn.relu", "rz.relu", "rn.satfinite", "rn.relu.satfinite"} {
			add(&isaCase{name: "cvt." + md + "." + ty + ".f32 %d0, %a0;", in: []string{"b32"}, out: "b16", rows: randRows(8192, f32Gen)})
			add(&isaCase{name: "cvt." + md + "." + ty + "x2.f32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: randRows(8192, f32Gen, f32Gen)})
		}
	}
	for _, md := range []string{"rna.satfinite", "rn.satfinite", "rz.satfinite", "rn.relu.satfinite", "rz.relu.satfinite", "rn", "rz", "rn.relu", "rz.relu"} {
		add(&isaCase{name: "cvt." + md + ".tf32.f32 %d0, %a0;", in: []string{"b32"}, out: "b32", rows: randRows(8192, f32Gen)})
	}
	for _, op := range []string{"min", "max"} {
		for _, md := range []string{".xorsign.abs", ".NaN.xorsign.abs", ".ftz.xorsign.abs", ".ftz.NaN.xorsign.abs"} {
			add(&isaCase{name: op + md + ".f32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: randRows(4096, f32Gen, f32Gen)})
		}
		add(&isaCase{name: op + ".relu.s32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: randRows(4096, i32Gen, i32Gen)})
		// Three inputs (PTX 8.8): sm_100 and later.
		add(&isaCase{name: op + ".f32 %d0, %a0, %a1, %a2;", in: []string{"b32", "b32", "b32"}, out: "b32", rows: randRows(64, f32Gen, f32Gen, f32Gen)})
		add(&isaCase{name: op + ".NaN.abs.f32 %d0, %a0, %a1, %a2;", in: []string{"b32", "b32", "b32"}, out: "b32", rows: randRows(64, f32Gen, f32Gen, f32Gen)})
	}

	// Scalar video instructions.
	sels := []string{"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"}
	dsels := []string{".b0", ".b1", ".b2", ".b3", ".h0", ".h1"}
	tys := []string{"u32", "s32"}
	k := 0
	pick := func() (string, string) {
		k++
		return sels[(k*5)%7], sels[(k*3+1)%7]
	}
	v3 := []string{"b32", "b32", "b32"}
	for _, op := range []string{"vadd", "vsub", "vabsdiff", "vmin", "vmax"} {
		for ti := 0; ti < 8; ti++ {
			dt, at, bt := tys[ti>>2&1], tys[ti>>1&1], tys[ti&1]
			base := op + "." + dt + "." + at + "." + bt
			for _, md := range []string{"", ".sat"} {
				as, bs := pick()
				add(&isaCase{name: fmt.Sprintf("%s%s %%d0, %%a0%s, %%a1%s;", base, md, as, bs), in: v3[:2], out: "b32", rows: randRows(256, byteGen, byteGen)})
				for _, op2 := range []string{".add", ".min", ".max"} {
					as, bs := pick()
					add(&isaCase{name: fmt.Sprintf("%s%s%s %%d0, %%a0%s, %%a1%s, %%a2;", base, md, op2, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, byteGen)})
				}
			}
			for i, ds := range dsels {
				as, bs := pick()
				md := ""
				if i%2 == 1 {
					md = ".sat"
				}
				add(&isaCase{name: fmt.Sprintf("%s%s %%d0%s, %%a0%s, %%a1%s, %%a2;", base, md, ds, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, byteGen)})
			}
		}
	}
	for _, op := range []string{"vshl", "vshr"} {
		for ti := 0; ti < 4; ti++ {
			dt, at := tys[ti>>1&1], tys[ti&1]
			for _, mode := range []string{".clamp", ".wrap"} {
				base := op + "." + dt + "." + at + ".u32"
				for _, md := range []string{"", ".sat"} {
					as, bs := pick()
					add(&isaCase{name: fmt.Sprintf("%s%s%s %%d0, %%a0%s, %%a1%s;", base, md, mode, as, bs), in: v3[:2], out: "b32", rows: randRows(256, byteGen, shiftGen)})
					for _, op2 := range []string{".add", ".min", ".max"} {
						as, bs := pick()
						add(&isaCase{name: fmt.Sprintf("%s%s%s%s %%d0, %%a0%s, %%a1%s, %%a2;", base, md, mode, op2, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, shiftGen, byteGen)})
					}
				}
				for _, ds := range dsels {
					as, bs := pick()
					add(&isaCase{name: fmt.Sprintf("%s%s %%d0%s, %%a0%s, %%a1%s, %%a2;", base, mode, ds, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, shiftGen, byteGen)})
				}
			}
		}
	}
	for ti := 0; ti < 8; ti++ {
		dt, at, bt := tys[ti>>2&1], tys[ti>>1&1], tys[ti&1]
		base := "vmad." + dt + "." + at + "." + bt
		for _, md := range []string{"", ".sat", ".shr7", ".shr15", ".sat.shr15", ".po", ".po.sat", ".po.shr7", ".po.sat.shr15"} {
			as, bs := pick()
			add(&isaCase{name: fmt.Sprintf("%s%s %%d0, %%a0%s, %%a1%s, %%a2;", base, md, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, i32Gen)})
		}
	}
	for ti := 0; ti < 4; ti++ {
		at, bt := tys[ti>>1&1], tys[ti&1]
		for _, cmp := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
			base := "vset." + at + "." + bt + "." + cmp
			as, bs := pick()
			add(&isaCase{name: fmt.Sprintf("%s %%d0, %%a0%s, %%a1%s;", base, as, bs), in: v3[:2], out: "b32", rows: randRows(256, byteGen, byteGen)})
			for _, op2 := range []string{".add", ".min", ".max"} {
				as, bs := pick()
				add(&isaCase{name: fmt.Sprintf("%s%s %%d0, %%a0%s, %%a1%s, %%a2;", base, op2, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, byteGen)})
			}
			ds := dsels[k%6]
			as, bs = pick()
			add(&isaCase{name: fmt.Sprintf("%s %%d0%s, %%a0%s, %%a1%s, %%a2;", base, ds, as, bs), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, byteGen)})
		}
	}

	// tensormap.replace, on a map in global and in shared memory.
	vals := func(vs ...uint64) func(*rand.Rand) [][]uint64 {
		return func(*rand.Rand) [][]uint64 {
			rows := make([][]uint64, len(vs))
			for i, v := range vs {
				rows[i] = []uint64{v}
			}
			return rows
		}
	}
	for _, sp := range []string{"global", "shared::cta"} {
		sh := sp != "global"
		tm := func(field, ty, ord string, v func(*rand.Rand) [][]uint64, target string) {
			ops := "[%m], %a0;"
			if ord != "" {
				ops = "[%m], " + ord + ", %a0;"
			}
			add(&isaCase{name: "tensormap.replace.tile." + field + "." + sp + ".b1024." + ty + " " + ops, in: []string{ty}, tmap: true, shared: sh,
				target: target, rows: v})
		}
		tm("global_address", "b64", "", vals(0, 16, 0x7f0000001230, 0xfffffffffff0, 0x123456789abcdef0), "sm_90a")
		tm("rank", "b32", "", vals(0, 1, 2, 3, 4, 5, 7), "sm_90a")
		for o := 0; o < 5; o++ {
			ord := fmt.Sprint(o)
			tm("box_dim", "b32", ord, vals(1, 2, 7, 16, 32, 255, 256), "sm_90a")
			tm("global_dim", "b32", ord, vals(1, 2, 17, 1000, 65536, 0x7fffffff, 0xffffffff), "sm_90a")
			tm("element_stride", "b32", ord, vals(1, 2, 3, 5, 8), "sm_90a")
			if o < 4 {
				tm("global_stride", "b64", ord, vals(16, 32, 4096, 0x12340, 1<<32, 1<<36|0x10, 1<<40-16), "sm_90a")
			}
		}
		tm("elemtype", "b32", "", vals(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), "sm_90a")
		tm("interleave_layout", "b32", "", vals(0, 1, 2), "sm_90a")
		tm("swizzle_mode", "b32", "", vals(0, 1, 2, 3, 4), "sm_90a")
		tm("fill_mode", "b32", "", vals(0, 1), "sm_90a")
		tm("swizzle_atomicity", "b32", "", vals(0, 1, 2, 3), "sm_90a")
		// The fields whose new value is an immediate.
		for _, f := range []struct {
			name string
			n    int
		}{{"elemtype", 16}, {"interleave_layout", 3}, {"swizzle_mode", 5}, {"fill_mode", 2}, {"swizzle_atomicity", 4}} {
			for v := 0; v < f.n; v++ {
				add(&isaCase{name: fmt.Sprintf("tensormap.replace.tile.%s.%s.b1024.b32 [%%m], %d;", f.name, sp, v), in: []string{"b32"}, tmap: true, shared: sh,
					target: "sm_90a", rows: vals(0)})
			}
		}
		// tensormap.replace needs sm_90a.
		add(&isaCase{name: "tensormap.replace.tile.rank." + sp + ".b1024.b32 [%m], %a0; // on sm_90", in: []string{"b32"}, tmap: true, shared: sh, rows: vals(2)})
	}

	// Every destination selector with and without .sat.
	for _, op := range []string{"vadd", "vsub", "vmin", "vabsdiff"} {
		for _, dt := range tys {
			for _, ds := range dsels {
				for _, md := range []string{"", ".sat"} {
					for _, ab := range [][2]string{{"", ".b1"}, {".h1", ".b2"}, {".b3", ".h0"}} {
						add(&isaCase{name: fmt.Sprintf("%s.%s.s32.u32%s %%d0%s, %%a0%s, %%a1%s, %%a2;", op, dt, md, ds, ab[0], ab[1]), in: v3, out: "b32",
							rows: randRows(256, byteGen, byteGen, byteGen)})
					}
				}
			}
		}
	}
	for _, ds := range dsels {
		add(&isaCase{name: fmt.Sprintf("vset.s32.u32.lt %%d0%s, %%a0.b1, %%a1.h1, %%a2;", ds), in: v3, out: "b32", rows: randRows(256, byteGen, byteGen, byteGen)})
		add(&isaCase{name: fmt.Sprintf("vshl.s32.u32.u32.clamp %%d0%s, %%a0.b1, %%a1.b0, %%a2;", ds), in: v3, out: "b32", rows: randRows(256, byteGen, shiftGen, byteGen)})
		add(&isaCase{name: fmt.Sprintf("vshr.u32.s32.u32.wrap %%d0%s, %%a0.h1, %%a1.b2, %%a2;", ds), in: v3, out: "b32", rows: randRows(256, byteGen, shiftGen, byteGen)})
	}
	// fma.rn.oob with the OOB NaN (0x7ff7, either sign) in each operand.
	oob := func(x2 bool) func(r *rand.Rand) uint64 {
		one := func(r *rand.Rand) uint64 {
			switch r.IntN(4) {
			case 0:
				return 0x7ff7
			case 1:
				return 0xfff7
			}
			return uint64(halfGen(false)(r))
		}
		return func(r *rand.Rand) uint64 {
			if x2 {
				return one(r) | one(r)<<16
			}
			return one(r)
		}
	}
	for _, t := range []string{"f16", "bf16", "f16x2", "bf16x2"} {
		x2 := strings.HasSuffix(t, "x2")
		w := "b16"
		if x2 {
			w = "b32"
		}
		for _, md := range []string{"oob", "oob.relu"} {
			add(&isaCase{name: "fma.rn." + md + "." + t + " %d0, %a0, %a1, %a2; // OOB NaNs", in: []string{w, w, w}, out: w, rows: randRows(1024, oob(x2), oob(x2), oob(x2))})
		}
	}
	// The other rounding modes between f16 and bf16; abs and neg on NaNs.
	for _, r := range []string{"rz", "rm", "rp"} {
		add(&isaCase{name: "cvt." + r + ".bf16.f16 %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
		add(&isaCase{name: "cvt." + r + ".f16.bf16 %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	}
	for _, f := range []string{"abs.f16", "neg.f16", "abs.bf16", "neg.bf16", "abs.ftz.f16", "neg.ftz.f16"} {
		add(&isaCase{name: f + " %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	}

	// Rounding a bf16 to an integral bf16.
	for _, r := range []string{"rni", "rzi", "rmi", "rpi"} {
		add(&isaCase{name: "cvt." + r + ".bf16.bf16 %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	}
	// set on packed halves: every comparison, with and without .ftz.
	cmps := []string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
	for _, cmp := range cmps {
		for _, md := range []string{"", ".ftz"} {
			add(&isaCase{name: "set." + cmp + md + ".f16x2.f16x2 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: halfPairRows(1024, false)})
		}
		add(&isaCase{name: "set." + cmp + ".bf16x2.bf16x2 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: halfPairRows(1024, true)})
	}
	// … combined with a predicate (%a2 != 0), into integer destinations,
	// and set with a scalar .f16/.bf16 destination.
	for _, f := range []string{"set.lt.and.f16x2.f16x2 %d0, %a0, %a1, %c;", "set.gtu.or.ftz.f16x2.f16x2 %d0, %a0, %a1, !%c;",
		"set.ne.xor.f16x2.f16x2 %d0, %a0, %a1, %c;", "set.le.and.bf16x2.bf16x2 %d0, %a0, %a1, !%c;",
		"set.nan.or.bf16x2.bf16x2 %d0, %a0, %a1, %c;", "set.equ.xor.bf16x2.bf16x2 %d0, %a0, %a1, !%c;",
		"set.ge.and.u32.f16x2 %d0, %a0, %a1, %c;", "set.lt.xor.f16.f32 %d0, %a0, %a1, %c;"} {
		w := []string{"b32", "b32", "b32"}
		g := halfPairRows(1024, strings.Contains(f, "bf16"))
		out := "b32"
		if strings.Contains(f, ".f16.f32") {
			g, out = nil, "b16"
		}
		rows := func(r *rand.Rand) [][]uint64 {
			var rs [][]uint64
			if g != nil {
				rs = g(r)
			} else {
				rs = randRows(1024, f32Gen, f32Gen)(r)
			}
			for i := range rs {
				rs[i] = append(rs[i], uint64(r.IntN(2)))
			}
			return rs
		}
		add(&isaCase{name: "{ .reg .pred %c; setp.ne.b32 %c, %a2, 0; " + f + " }", in: w, out: out, rows: rows})
	}
	for _, f := range []string{"set.lt.u32.f16x2", "set.geu.ftz.s32.f16x2", "set.eq.u32.bf16x2", "set.num.s32.bf16x2"} {
		add(&isaCase{name: f + " %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: halfPairRows(1024, strings.Contains(f, "bf16"))})
	}
	for _, f := range []string{"set.lt.f16.f32", "set.gtu.ftz.f16.f32", "set.ge.bf16.f32", "set.neu.bf16.f32"} {
		add(&isaCase{name: f + " %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b16", rows: randRows(1024, f32Gen, f32Gen)})
	}
	for _, f := range []string{"set.le.f16.f16", "set.ltu.ftz.f16.f16", "set.gt.u16.f16", "set.lt.u32.bf16"} {
		bf := strings.HasSuffix(f, "bf16")
		out := "b16"
		if strings.Contains(f, "u32") {
			out = "b32"
		}
		add(&isaCase{name: f + " %d0, %a0, %a1;", in: []string{"b16", "b16"}, out: out, rows: randRows(1024, h16(bf), h16(bf))})
	}

	// Other PTX 8.x forms.
	add(&isaCase{name: "{ .reg .b128 %w; mov.b128 %w, {%a0, %a1}; mov.b128 {%q0, %d0}, %w; }", in: []string{"b64", "b64"}, out: "b64",
		rows: randRows(64, func(r *rand.Rand) uint64 { return r.Uint64() }, func(r *rand.Rand) uint64 { return r.Uint64() })})
	add(&isaCase{name: "{ .reg .b128 %w; mov.b128 %w, {%a0, %a1}; st.global.b128 [%rdi], %w; ld.global.b64 %d0, [%rdi+8]; }", in: []string{"b64", "b64"}, out: "b64",
		rows: randRows(64, func(r *rand.Rand) uint64 { return r.Uint64() }, func(r *rand.Rand) uint64 { return r.Uint64() })})
	// .b128: the halves' order through mov, memory of each space and the
	// 128-bit atomics (old value and memory after, mixed into one output).
	u64 := func(r *rand.Rand) uint64 { return r.Uint64() }
	mix := "mad.lo.u64 %d0, %q0, 3, %q1; mad.lo.u64 %d0, %d0, 5, %rdt; mad.lo.u64 %d0, %d0, 7, %m; }"
	for _, b := range []struct {
		snip   string
		shared bool
	}{
		{"mov.b128 {%d0, %q0}, %w; }", false},
		{"mov.b128 %v, %w; mov.b128 {%q0, %q1}, %v; mad.lo.u64 %d0, %q0, 3, %q1; }", false},
		{"st.b128 [%rdi], %w; ld.global.v2.b64 {%q0, %q1}, [%rdi]; ld.b128 %v, [%rdi]; mov.b128 {%rdt, %m}, %v; " + mix, false},
		{"mov.u64 %q0, smap; mov.u32 %t0, %tid.x; mul.wide.u32 %q1, %t0, 16; add.s64 %q0, %q0, %q1; st.shared.b128 [%q0], %w; ld.shared.b128 %v, [%q0]; mov.b128 {%q0, %q1}, %v; mad.lo.u64 %d0, %q0, 3, %q1; }", true},
		{"mov.u64 %q0, smap; mov.u32 %t0, %tid.x; mul.wide.u32 %q1, %t0, 16; add.s64 %q0, %q0, %q1; cvta.shared.u64 %q0, %q0; st.b128 [%q0], %w; ld.b128 %v, [%q0]; mov.b128 {%q0, %q1}, %v; mad.lo.u64 %d0, %q0, 3, %q1; }", true},
		{".local .align 16 .b8 lb[32]; st.local.b128 [lb+16], %w; ld.local.b128 %v, [lb+16]; mov.b128 {%q0, %q1}, %v; mad.lo.u64 %d0, %q0, 3, %q1; }", false},
		{"mov.b128 %v, {%a1, %a0}; atom.global.cas.b128 %x, [%rdi], %w, %v; ld.global.v2.b64 {%q0, %q1}, [%rdi]; mov.b128 {%rdt, %m}, %x; " + mix, false},
		{"mov.b128 %v, {%a0, %a0}; mov.b128 %x, {%a1, %a1}; atom.cas.b128 %x, [%rdi], %v, %x; ld.global.v2.b64 {%q0, %q1}, [%rdi]; mov.b128 {%rdt, %m}, %x; " + mix, false},
		{"mov.b128 %v, {%a1, %a0}; atom.exch.b128 %x, [%rdi], %v; ld.global.v2.b64 {%q0, %q1}, [%rdi]; mov.b128 {%rdt, %m}, %x; " + mix, false},
		{"mov.u64 %q0, smap; mov.u32 %t0, %tid.x; mul.wide.u32 %q1, %t0, 16; add.s64 %rdi, %q0, %q1; st.shared.b128 [%rdi], %w; mov.b128 %v, {%a0, %a0}; mov.b128 %x, {%a1, %a0}; atom.shared.cas.b128 %x, [%rdi], %v, %x; ld.shared.v2.b64 {%q0, %q1}, [%rdi]; mov.b128 {%rdt, %m}, %x; " + mix, true},
		{"mov.u64 %q0, smap; mov.u32 %t0, %tid.x; mul.wide.u32 %q1, %t0, 32; add.s64 %rdi, %q0, %q1; st.shared.b128 [%rdi], %w; st.shared.v2.b64 [%rdi+16], {%a1, %a0}; ld.shared.v2.b128 {%v, %x}, [%rdi]; mov.b128 {%q0, %q1}, %v; mov.b128 {%rdt, %m}, %x; " + mix, true},
		{"cvt.u32.u64 %t0, %a0; cvt.u32.u64 %t1, %a1; mov.b128 %x, {%t0, %t1, %t1, %t0}; mov.b128 {%q0, %d0}, %x; mad.lo.u64 %d0, %q0, 3, %d0; }", false},
	} {
		// Half the rows have equal halves, so that the CAS on {a0, a0}
		// succeeds there and fails elsewhere.
		rows := func(r *rand.Rand) [][]uint64 {
			rs := randRows(64, u64, u64)(r)
			for i := range rs {
				if i%2 == 0 {
					rs[i][1] = rs[i][0]
				}
			}
			return rs
		}
		add(&isaCase{name: "{ .reg .b128 %w, %v, %x; mov.b128 %w, {%a0, %a1}; " + b.snip, in: []string{"b64", "b64"}, out: "b64", shared: b.shared, rows: rows})
	}
	add(&isaCase{name: "copysign.f32 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: randRows(256, f32Gen, f32Gen)})
	add(&isaCase{name: "add.rn.bf16 %d0, %a0, %a1;", in: []string{"b16", "b16"}, out: "b16", rows: randRows(1024, h16(true), h16(true))})
	add(&isaCase{name: "mul.rn.bf16x2 %d0, %a0, %a1;", in: []string{"b32", "b32"}, out: "b32", rows: randRows(1024, h32(true), h32(true))})
	add(&isaCase{name: "cvt.f32.bf16 %d0, %a0;", in: []string{"b16"}, out: "b32", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	add(&isaCase{name: "cvt.rn.bf16.f16 %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	add(&isaCase{name: "cvt.rn.f16.bf16 %d0, %a0;", in: []string{"b16"}, out: "b16", rows: exhaustive(65536, func(i uint64) []uint64 { return []uint64{i} })})
	add(&isaCase{name: "abs.bf16x2 %d0, %a0;", in: []string{"b32"}, out: "b32", rows: randRows(256, h32(true))})
	add(&isaCase{name: "stacksave.u64 %q0; { .reg .b64 %s; alloca.u64 %s, 64, 16; st.local.u32 [%s], %a0; ld.local.u32 %d0, [%s]; } stackrestore.u64 %q0;",
		in: []string{"b32"}, out: "b32", rows: randRows(64, i32Gen)})
	// Dynamic stack allocation: what soft's pointers say does not depend
	// on where its stack lies (soft's grows up from 0x8000_0000; the H100's
	// lies elsewhere and may grow down), so the cases output sums,
	// equalities and alignments.
	// A VLA of 1..64 words (%a0), filled with %a0 + i*%a1 and folded back
	// in reverse order; alignments 8 (the default), 16 and 256.
	for _, a := range [][2]string{{"", "7"}, {", 16", "15"}, {", 256", "255"}} {
		al, mask := a[0], a[1]
		add(&isaCase{name: "{ .reg .b64 %p, %o; .reg .b32 %n, %i, %v; .reg .pred %lp; and.b32 %n, %a0, 63; add.u32 %n, %n, 1; mul.wide.u32 %o, %n, 4; " +
			"alloca.u64 %p, %o" + al + "; mov.b64 %q0, %p; mov.u32 %i, 0; " +
			"F: mad.lo.u32 %v, %i, %a1, %a0; st.local.u32 [%q0], %v; add.s64 %q0, %q0, 4; add.u32 %i, %i, 1; setp.lt.u32 %lp, %i, %n; @%lp bra F; " +
			"mov.u32 %d0, 0; S: sub.s64 %q0, %q0, 4; ld.local.u32 %v, [%q0]; mad.lo.u32 %d0, %d0, 31, %v; setp.gt.u64 %lp, %q0, %p; @%lp bra S; " +
			"cvt.u32.u64 %v, %p; and.b32 %v, %v, " + mask + "; setp.eq.u32 %lp, %v, 0; @%lp xor.b32 %d0, %d0, 0x80000000; }",
			in: []string{"b32", "b32"}, out: "b32", rows: randRows(64, i32Gen, i32Gen)})
	}
	// stackrestore frees: an alloca after it returns the pointer the one
	// before it did, and stacksave then returns what it did before; the
	// pointers are aligned; two live allocations do not overlap.
	add(&isaCase{name: "{ .reg .b64 %s, %s1, %p, %r, %o; .reg .b32 %v; .reg .pred %e; and.b32 %v, %a0, 1023; add.u32 %v, %v, 1; cvt.u64.u32 %o, %v; " +
		"stacksave.u64 %s; alloca.u64 %p, %o, 32; stacksave.u64 %s1; stackrestore.u64 %s; alloca.u64 %r, %o, 32; stackrestore.u64 %s; " +
		"setp.eq.u64 %e, %p, %r; selp.u32 %d0, 1, 0, %e; setp.ne.u64 %e, %s1, %s; @%e or.b32 %d0, %d0, 2; " +
		"stacksave.u64 %s1; setp.eq.u64 %e, %s1, %s; @%e or.b32 %d0, %d0, 4; and.b64 %o, %p, 31; setp.eq.u64 %e, %o, 0; @%e or.b32 %d0, %d0, 8; }",
		in: []string{"b32"}, out: "b32", rows: randRows(64, i32Gen)})
	add(&isaCase{name: "{ .reg .b64 %p, %r; alloca.u64 %p, 4; alloca.u64 %r, 4; st.local.u32 [%p], %a0; st.local.u32 [%r], %a1; " +
		"ld.local.u32 %t0, [%p]; ld.local.u32 %t1, [%r]; shf.l.wrap.b32 %t1, %t1, %t1, 7; xor.b32 %d0, %t0, %t1; }",
		in: []string{"b32", "b32"}, out: "b32", rows: randRows(64, i32Gen, i32Gen)})
	// Through a generic pointer (cvta.local), and a 32-bit alloca.
	add(&isaCase{name: "{ .reg .b64 %p, %g; alloca.u64 %p, 8; cvta.local.u64 %g, %p; st.u32 [%g+4], %a0; ld.local.u32 %t0, [%p+4]; " +
		"isspacep.local.pred %pq, %g; selp.u32 %t1, 1, 0, %pq; add.u32 %d0, %t0, %t1; }",
		in: []string{"b32"}, out: "b32", rows: randRows(64, i32Gen)})
	add(&isaCase{name: "{ .reg .b32 %p; alloca.u32 %p, 8; st.local.u32 [%p], %a0; ld.local.u32 %d0, [%p]; }",
		in: []string{"b32"}, out: "b32", rows: randRows(64, i32Gen)})
	// brx.idx: each row (lane) picks its own target, so the lanes of a
	// warp diverge several ways and meet again; 1024 rows keep every warp
	// whole for the shfl.sync after the meeting point.
	// A four-way switch over a permuted list, then a butterfly shuffle.
	add(&isaCase{name: "and.b32 %t0, %a0, 3; ts: .branchtargets L2, L0, L3, L1; brx.idx %t0, ts; " +
		"L0: add.u32 %d0, %a1, 17; bra J; L1: mul.lo.u32 %d0, %a1, 3; bra J; L2: xor.b32 %d0, %a1, 0x5a5a5a5a; bra J; L3: shl.b32 %d0, %a1, 4; " +
		"J: shfl.sync.bfly.b32 %t1, %d0, 1, 0x1f, -1; add.u32 %d0, %d0, %t1;",
		in: []string{"b32", "b32"}, out: "b32", rows: randRows(1024, i32Gen, i32Gen)})
	// Collatz steps of 1..1024 in a loop that brx.idx closes (two of its
	// targets lie behind it), then lane 0's count shuffled in.
	add(&isaCase{name: "and.b32 %r1, %a0, 1023; add.u32 %r1, %r1, 1; mov.u32 %d0, 0; tc: .branchtargets E, O, X; bra D; " +
		"E: shr.u32 %r1, %r1, 1; add.u32 %d0, %d0, 1; bra D; O: mad.lo.u32 %r1, %r1, 3, 1; add.u32 %d0, %d0, 1; " +
		"D: and.b32 %t0, %r1, 1; setp.eq.u32 %pq, %r1, 1; @%pq mov.u32 %t0, 2; brx.idx %t0, tc; " +
		"X: shfl.sync.idx.b32 %t1, %d0, 0, 0x1f, -1; mad.lo.u32 %d0, %t1, 65536, %d0;",
		in: []string{"b32"}, out: "b32", rows: randRows(1024, i32Gen)})
	// A guarded brx.idx (rows with an index of 5..7 skip it) into cases
	// that fall through into each other.
	add(&isaCase{name: "and.b32 %t0, %a0, 7; setp.lt.u32 %pq, %t0, 5; mov.u32 %d0, %a1; tg: .branchtargets C0, C1, C2, C3, C4; @%pq brx.idx %t0, tg; " +
		"not.b32 %d0, %d0; bra J; C0: add.u32 %d0, %d0, 1; C1: add.u32 %d0, %d0, 2; C2: add.u32 %d0, %d0, 4; C3: add.u32 %d0, %d0, 8; " +
		"C4: add.u32 %d0, %d0, 16; J: shfl.sync.down.b32 %t1, %d0, 3, 0x1f, -1; xor.b32 %d0, %d0, %t1;",
		in: []string{"b32", "b32"}, out: "b32", rows: randRows(1024, i32Gen, i32Gen)})
	// brx.idx.uni with an index that is the same across each warp (its
	// warp number mod 4).
	add(&isaCase{name: "mov.u32 %t0, %tid.x; shr.u32 %t0, %t0, 5; and.b32 %t0, %t0, 3; tu: .branchtargets U3, U1, U0, U2; brx.idx.uni %t0, tu; " +
		"U0: mul.lo.u32 %d0, %a0, 5; bra J; U1: sub.u32 %d0, %a0, 9; bra J; U2: shr.u32 %d0, %a0, 3; bra J; U3: popc.b32 %d0, %a0; J: add.u32 %d0, %d0, %t0;",
		in: []string{"b32"}, out: "b32", rows: randRows(1024, i32Gen)})
	videoPendingCases(add)
	return cs
}

// videoPendingCases adds the scalar video forms that had no recording when
// soft's video rules were fitted: vmad with a whole-word a
// and b, vshl/vshr .sat with a destination selector, .u32.sat.min/.max
// after vadd/vsub with sums past 2^32-1, and vmad with negated operands.
func videoPendingCases(add func(*isaCase)) {
	v3 := []string{"b32", "b32", "b32"}
	tys := []string{"u32", "s32"}
	// vmad with a whole-word a and b: every type and modifier set.
	for ti := 0; ti < 8; ti++ {
		dt, at, bt := tys[ti>>2&1], tys[ti>>1&1], tys[ti&1]
		base := "vmad." + dt + "." + at + "." + bt
		for _, md := range []string{"", ".sat", ".shr7", ".shr15", ".sat.shr7", ".sat.shr15", ".po", ".po.sat", ".po.shr7", ".po.sat.shr15"} {
			add(&isaCase{name: base + md + " %d0, %a0, %a1, %a2;", in: v3, out: "b32", rows: randRows(256, i32Gen, i32Gen, i32Gen)})
		}
	}
	// vshl/vshr .sat with each destination selector, .clamp and .wrap,
	// every dtype and atype; a and b selectors rotate (a whole-word b gets
	// small shift amounts too).
	asels := []string{"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"}
	bsels := []string{".b0", "", ".b1", ".h0", ".b2", ".b3", ".h1"}
	k := 0
	for _, op := range []string{"vshl", "vshr"} {
		for ti := 0; ti < 4; ti++ {
			dt, at := tys[ti>>1&1], tys[ti&1]
			for _, mode := range []string{".clamp", ".wrap"} {
				for _, ds := range []string{".b0", ".b1", ".b2", ".b3", ".h0", ".h1"} {
					as, bs := asels[k%7], bsels[(k/7+k)%7]
					k++
					bg, ag := shiftGen, byteGen
					if bs == "" {
						bg = wordShiftGen
					}
					if as == "" {
						ag = i32Gen
					}
					add(&isaCase{name: fmt.Sprintf("%s.%s.%s.u32.sat%s %%d0%s, %%a0%s, %%a1%s, %%a2;", op, dt, at, mode, ds, as, bs), in: v3, out: "b32",
						rows: randRows(256, ag, bg, byteGen)})
				}
			}
		}
	}
	// vmad with negated operands: every type, each negation pattern (-a,
	// -b, both, -c, -a and -c), plain, .sat and .shr15; a and b selectors
	// rotate.
	for ti := 0; ti < 8; ti++ {
		dt, at, bt := tys[ti>>2&1], tys[ti>>1&1], tys[ti&1]
		base := "vmad." + dt + "." + at + "." + bt
		for _, ng := range [][3]string{{"-", "", ""}, {"", "-", ""}, {"-", "-", ""}, {"", "", "-"}, {"-", "", "-"}} {
			for _, md := range []string{"", ".sat", ".shr15"} {
				as, bs := asels[k%7], bsels[(k/7+k)%7]
				k++
				if as == "" && bs == "" {
					bs = ".h0"
				}
				add(&isaCase{name: fmt.Sprintf("%s%s %%d0, %s%%a0%s, %s%%a1%s, %s%%a2;", base, md, ng[0], as, ng[1], bs, ng[2]), in: v3, out: "b32",
					rows: randRows(256, byteGen, byteGen, i32Gen)})
			}
		}
	}
	// .u32.sat.min/.max after vadd and vsub with whole-word operands whose
	// sum passes 2^32-1 (most rows), c on both sides of the result.
	for _, op := range []string{"vadd", "vsub"} {
		for ti := 0; ti < 4; ti++ {
			at, bt := tys[ti>>1&1], tys[ti&1]
			for _, op2 := range []string{".min", ".max"} {
				add(&isaCase{name: fmt.Sprintf("%s.u32.%s.%s.sat%s %%d0, %%a0, %%a1, %%a2;", op, at, bt, op2), in: v3, out: "b32", rows: wrapSumRows(op == "vsub")})
			}
		}
	}
}

// wordShiftGen: whole-word shift amounts, mostly below 40.
func wordShiftGen(r *rand.Rand) uint64 {
	if r.IntN(4) == 0 {
		return uint64(r.Uint32())
	}
	return uint64(r.IntN(40))
}

// wrapSumRows: a, b, c rows for vadd (sub: vsub) whose whole-word a + b
// (a - b) mostly passes 2^32-1, with c near the sum's low 32 bits, near
// 2^32-1, near 2^31, small, or random.
func wrapSumRows(sub bool) func(*rand.Rand) [][]uint64 {
	return func(r *rand.Rand) [][]uint64 {
		rows := make([][]uint64, 512)
		for i := range rows {
			a := uint64(0xffffffff - r.IntN(1<<uint(r.IntN(32))))
			b := uint64(r.IntN(1 << uint(r.IntN(33))))
			if r.IntN(8) == 0 {
				a, b = uint64(r.Uint32()), uint64(r.Uint32())
			}
			if sub {
				b = uint64(uint32(-int32(b)))
			}
			s := a + b
			if sub {
				s = a - b
			}
			var c uint64
			switch r.IntN(6) {
			case 0:
				c = s + uint64(r.IntN(64)) - 32
			case 1:
				c = 0xffffffff - uint64(r.IntN(64))
			case 2:
				c = 0x80000000 + uint64(r.IntN(64)) - 32
			case 3:
				c = uint64(r.IntN(64))
			default:
				c = uint64(r.Uint32())
			}
			rows[i] = []uint64{a, b & 0xffffffff, c & 0xffffffff}
		}
		return rows
	}
}

// The forms soft refuses without a recording to compare with name the
// PTX file:line and say why.
func TestISA8Refusals(t *testing.T) {
	d := New(Options{})
	for _, c := range []struct{ body, why string }{
		{"multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];", "multicast memory objects"},
		{"multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;", "multicast memory objects"},
		{"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2, %r3}], [%rd3], {%h1};", ".im2col load mode"},
		{"tensormap.replace.tile.box_dim.b1024.b32 [%rd1], 0, %r1;", "without .global or .shared::cta"},
		{"tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd1], 4;", "out of range"},
		{"tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], %r1;", "integer constant"},
		{"min.NaN.f32 %f1, %f2, %f3, %f4;", "three sources"},
		{"vmad.u32.u32.u32.po %r1, -%r2.b0, %r3.b0, %r4;", "vmad.po takes no negated operand"},
		{"vmad.s32.s32.s32 %r1, -%r2.b0, %r3.b0, -%r4;", "limited to either (source A xor source B) or source C"},
		{"vadd.u32.u32.u32 %r1, -%r2.b0, %r3.b0;", "expected number after '-'"},
		{"vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4;", "excludes a secondary operation"},
		{"cvt.rs.f16x2.f32 %r1, %f1, %f2, %r3;", "stochastic rounding"},
	} {
		src := ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<5>;\n\t.reg .f32 %f<5>;\n\t.reg .b16 %h<2>;\n\t" + c.body + "\n\tret;\n}\n"
		_, err := d.LibraryLoad([]byte(src), rt.LoadOptions{Name: "r.ptx"})
		if err == nil || !strings.Contains(err.Error(), "r.ptx:10:") || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: got %v, want a refusal at r.ptx:10 saying %q", c.body, err, c.why)
		}
	}
}
