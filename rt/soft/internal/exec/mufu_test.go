package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/klauspost/compress/zstd"
)

// testdata/mufu/h100.zst holds, per .approx form, the H100's results at
// structured samples and, per input class (sign and exponent: 2^23
// inputs), an order-independent hash of its results over the whole class
// (GPU run 1, testdata/mufu/NOTES.md). TestMufuH100 runs the samples and a
// few classes of every form through the generated ops; with
// CUGEN_MUFU_EXHAUSTIVE=1 it runs all 2^32 inputs of every form (under
// -race, only the samples).

type mufuRef struct {
	name string
	cls  [512]uint64
	out  []uint32
}

func loadMufuRef(t *testing.T) []mufuRef {
	t.Helper()
	z, err := readTestdata("mufu/h100.zst")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := zstd.NewReader(nil)
	defer d.Close()
	b, err := d.DecodeAll(z, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b)
	var refs []mufuRef
	for r.Len() > 0 {
		n, _ := r.ReadByte()
		name := make([]byte, n)
		r.Read(name)
		ref := mufuRef{name: string(name)}
		var cnt uint32
		if binary.Read(r, binary.LittleEndian, &ref.cls) != nil || binary.Read(r, binary.LittleEndian, &cnt) != nil {
			t.Fatal("h100.zst: truncated")
		}
		ref.out = make([]uint32, cnt)
		if err := binary.Read(r, binary.LittleEndian, ref.out); err != nil {
			t.Fatal("h100.zst: truncated")
		}
		refs = append(refs, ref)
	}
	return refs
}

// mufuSampleInputs regenerates the GPU run's sample inputs: the specials,
// then per input class a zero mantissa, a full one and two from an LCG
// (the run drew sixteen per class; the reference keeps the first four).
func mufuSampleInputs() []uint32 {
	v := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, 1, 0x80000001,
		0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff,
		0x3f000000, 0x40000000, 0x3fffffff, 0x3f7fffff}
	st := uint64(0x1234567)
	for c := uint32(0); c < 512; c++ {
		for j := 0; j < 16; j++ {
			st = st*6364136223846793005 + 1442695040888963407
			m := uint32(st>>41) & 0x7fffff
			switch j {
			case 0:
				m = 0
			case 1:
				m = 0x7fffff
			}
			if j < 4 {
				v = append(v, c<<23|m)
			}
		}
	}
	return v
}

// mufuForm makes evaluators of one recorded form, each for one goroutine,
// that run 32 inputs at a time through the generated op of its PTX spelling
// (or the MUFU function for the raw ones).
type mufuForm func() func(x *[32]uint32, out *[32]uint32)

func genForm(t *testing.T, key string) mufuForm {
	g, ok := genOps[key]
	if !ok {
		t.Fatalf("no generated op for %s", key)
	}
	return func() func(x *[32]uint32, out *[32]uint32) {
		r := make([]uint64, 3*32)
		return func(x *[32]uint32, out *[32]uint32) {
			for l, v := range x {
				r[32+l] = uint64(v)
			}
			execALU(&inst{op: g.op, a: 32, d: 64}, r, fullMask)
			for l := range out {
				out[l] = uint32(r[64+l])
			}
		}
	}
}

func rawForm(cos bool) mufuForm {
	return func() func(x *[32]uint32, out *[32]uint32) {
		return func(x *[32]uint32, out *[32]uint32) {
			for l, v := range x {
				out[l] = gpumath.MufuSinCos(v, cos)
			}
		}
	}
}

var mufuForms = map[string]string{
	"ex2_ftz": "ex2.approx.ftz.f32", "ex2": "ex2.approx.f32",
	"lg2_ftz": "lg2.approx.ftz.f32", "lg2": "lg2.approx.f32",
	"rcp_ftz": "rcp.approx.ftz.f32", "rcp": "rcp.approx.f32",
	"rsqrt_ftz": "rsqrt.approx.ftz.f32", "rsqrt": "rsqrt.approx.f32",
	"sqrt_ftz": "sqrt.approx.ftz.f32", "sqrt": "sqrt.approx.f32",
	"sin_ftz": "sin.approx.ftz.f32", "sin": "sin.approx.f32",
	"cos_ftz": "cos.approx.ftz.f32", "cos": "cos.approx.f32",
	"tanh":      "tanh.approx.f32",
	"ex2_f16x2": "ex2.approx.f16x2", "ex2_bf16x2": "ex2.approx.ftz.bf16x2",
	"tanh_f16x2": "tanh.approx.f16x2", "tanh_bf16x2": "tanh.approx.bf16x2",
}

// mufuClasses are the input classes checked by default: each form's
// fundamental domain and the classes where its reduction does something
// else (subnormals, overflow, the sequences ptxas wraps around the MUFU op,
// negative inputs). Each is 2^23 inputs.
var mufuClasses = map[string][]int{
	"ex2":   {0x07f, 0x17d, 0x086, 0x186, 0x000},
	"lg2":   {0x07e, 0x07f, 0x000, 0x0fe, 0x100},
	"rcp":   {0x07f, 0x000, 0x0fe, 0x17f},
	"rsqrt": {0x07f, 0x080, 0x000, 0x101},
	"sqrt":  {0x07f, 0x080, 0x000, 0x101},
	"sin":   {0x07f, 0x082, 0x17b, 0x000},
	"cos":   {0x07f, 0x082, 0x17b, 0x000},
	"tanh":  {0x077, 0x07e, 0x081, 0x17f, 0x000},
	"raw":   {0x07d, 0x07e, 0x1ff},
	"x2":    {0x07f, 0x17f, 0x0ff, 0x03c},
}

func classesFor(name string) []int {
	if os.Getenv("CUGEN_MUFU_EXHAUSTIVE") != "" {
		all := make([]int, 512)
		for i := range all {
			all[i] = i
		}
		return all
	}
	switch {
	case name == "rawsin" || name == "rawcos":
		return mufuClasses["raw"]
	case len(name) > 2 && name[len(name)-2:] == "x2":
		return mufuClasses["x2"]
	}
	for k, v := range mufuClasses {
		if name == k || name == k+"_ftz" {
			return v
		}
	}
	panic("no classes for " + name)
}

// mufuMix is the GPU run's per-input hash (splitmix64's finaliser).
func mufuMix(x, r uint32) uint64 {
	z := (uint64(x)<<32 | uint64(r)) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func classHash(f func(x, out *[32]uint32), cls int) uint64 {
	var s uint64
	var x, out [32]uint32
	base := uint32(cls) << 23
	for i := uint32(0); i < 1<<23; i += 32 {
		for l := range x {
			x[l] = base | i | uint32(l)
		}
		f(&x, &out)
		for l := range x {
			s += mufuMix(x[l], out[l])
		}
	}
	return s
}

func TestMufuH100(t *testing.T) {
	refs := loadMufuRef(t)
	if len(refs) != len(mufuForms)+2 {
		t.Fatalf("h100.zst has %d forms, want %d", len(refs), len(mufuForms)+2)
	}
	in := mufuSampleInputs()
	for _, ref := range refs {
		t.Run(ref.name, func(t *testing.T) {
			var f mufuForm
			switch ref.name {
			case "rawsin":
				f = rawForm(false)
			case "rawcos":
				f = rawForm(true)
			default:
				f = genForm(t, mufuForms[ref.name])
			}
			if len(ref.out) != len(in) {
				t.Fatalf("%d recorded samples, want %d", len(ref.out), len(in))
			}
			bad := 0
			eval := f()
			for i := 0; i < len(in); i += 32 {
				var x, out [32]uint32
				copy(x[:], in[i:])
				eval(&x, &out)
				for l := 0; l < 32 && i+l < len(in); l++ {
					if want := ref.out[i+l]; out[l] != want {
						if bad++; bad <= 5 {
							t.Errorf("x=%#08x (%g): got %#08x (%g), H100 %#08x (%g)", x[l], math.Float32frombits(x[l]),
								out[l], math.Float32frombits(out[l]), want, math.Float32frombits(want))
						}
					}
				}
			}
			if bad > 0 {
				t.Fatalf("%d of %d samples differ", bad, len(in))
			}
			cls := classesFor(ref.name)
			if softtest.Race {
				cls = nil // a class is 2^23 inputs: the classes run in go test
			}
			var mu sync.Mutex
			var wrong []string
			var wg sync.WaitGroup
			ch := make(chan int)
			for w := 0; w < runtime.GOMAXPROCS(0); w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					eval := f()
					for c := range ch {
						if h := classHash(eval, c); h != ref.cls[c] {
							mu.Lock()
							wrong = append(wrong, fmt.Sprintf("%#03x", c))
							mu.Unlock()
						}
					}
				}()
			}
			for _, c := range cls {
				ch <- c
			}
			close(ch)
			wg.Wait()
			if len(wrong) > 0 {
				t.Errorf("results differ from the H100 in input classes %v (of %d checked)", wrong, len(cls))
			} else {
				t.Logf("%d samples and %d input classes (%d inputs) match the H100", len(in), len(cls), len(cls)<<23)
			}
		})
	}
}

// TestMufuPTX runs every form as PTX through LoadModule and a Launch on 128
// recorded samples spread over the input classes (the scalar half forms on
// the low halves of their x2 form's samples).
func TestMufuPTX(t *testing.T) {
	refs := loadMufuRef(t)
	in := mufuSampleInputs()
	e := newEnv(t, Config{Workers: 1})
	scalar := map[string]string{"ex2_f16x2": "ex2.approx.f16", "ex2_bf16x2": "ex2.approx.ftz.bf16",
		"tanh_f16x2": "tanh.approx.f16", "tanh_bf16x2": "tanh.approx.bf16"}
	for _, ref := range refs {
		key, ok := mufuForms[ref.name]
		if !ok {
			continue
		}
		keys := []string{key}
		if s, ok := scalar[ref.name]; ok {
			keys = append(keys, s)
		}
		for _, k := range keys {
			ty := k[strings.LastIndexByte(k, '.')+1:]
			m := uint32(gpumath.Mask(uint(typeBits(ty))))
			var idx []int
			var args []uint64
			for i := 0; i < len(in); i += 16 {
				idx = append(idx, i)
				args = append(args, uint64(in[i]&m))
			}
			got, err := runUnary(e, k, ty, args)
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			for r, i := range idx {
				if want := ref.out[i] & m; uint32(got[r]) != want {
					t.Errorf("%s %#x: got %#x, H100 %#x", k, in[i]&m, got[r], want)
				}
			}
		}
	}
}

// runUnary runs "op %d0, %a0;" on each of args (values of PTX type ty,
// one thread each) and returns the results' bits.
func runUnary(e *env, op, ty string, args []uint64) ([]uint64, error) {
	reg := map[string]string{"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}[ty]
	if reg == "" {
		reg = ty
	}
	src := ptxHeader + ".visible .entry t(.param .u64 pin, .param .u64 pout)\n{\n" +
		"\t.reg .b64 %rdi, %rdo, %rdt;\n\t.reg .b32 %rt;\n" +
		fmt.Sprintf("\t.reg .%s %%a0;\n\t.reg .%s %%d0;\n", reg, reg) +
		"\tmov.u32 %rt, %tid.x;\n\tld.param.u64 %rdi, [pin];\n\tld.param.u64 %rdo, [pout];\n" +
		"\tmul.wide.u32 %rdt, %rt, 8;\n\tadd.s64 %rdi, %rdi, %rdt;\n\tadd.s64 %rdo, %rdo, %rdt;\n" +
		fmt.Sprintf("\tld.global.%s %%a0, [%%rdi];\n\t%s %%d0, %%a0;\n\tst.global.%s [%%rdo], %%d0;\n", reg, op, reg) +
		"\tret;\n}\n"
	lib, err := e.loadNamed([]byte(src), op+".ptx")
	if err != nil {
		return nil, err
	}
	defer e.unload(lib)
	pin, pout := e.buf(args), e.buf(make([]uint64, len(args)))
	defer e.free(pin)
	defer e.free(pout)
	if err := e.launchErr(e.kernel(lib, "t"), rt.D1(1), rt.D1(len(args)), 0, pin, pout); err != nil {
		return nil, err
	}
	out := make([]uint64, len(args))
	e.get(pout, out)
	for i := range out {
		out[i] &= gpumath.Mask(uint(typeBits(ty)))
	}
	return out, nil
}

// typeBits is the width of a PTX type's values.
func typeBits(t string) int {
	ty, ok := ptx.LookupType(t)
	if !ok {
		panic("unknown type " + t)
	}
	return ty.Size() * 8
}
