// Command mufugen turns the H100 recordings of the MUFU study (the GPU runs
// in rt/soft/internal/exec/testdata/mufu/NOTES.md) into the embedded tables of
// rt/soft/internal/gpumath (the recordings gpumath/testdata/mufu/*.zst, from
// which "go test ./rt/soft/internal/gpumath -run TestMufuTables -args
// -update" makes the embedded compact tables mufu/*.tab.zst) and the per-op reference
// data of the executor's tests (rt/soft/internal/exec/testdata/mufu/h100.zst).
//
//	go run ./rt/soft/internal/mufugen -run1 DIR -run2 DIR -soft rt/soft
//
// DIR is where a run's files were unpacked (run1: mufu0.tar; run2: the
// sin_odd25.bin.xz beside it). It needs the xz and zstd commands; tables
// are compressed with "zstd -19 --long=24", which the zstd package decodes.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

var run1, run2, soft string

func main() {
	flag.StringVar(&run1, "run1", "", "directory of GPU run 1's files")
	flag.StringVar(&run2, "run2", "", "directory of GPU run 2's files")
	flag.StringVar(&soft, "soft", "rt/soft", "the rt/soft directory")
	flag.Parse()
	if run1 == "" || run2 == "" {
		flag.Usage()
		os.Exit(2)
	}
	u16 := func(name string) []uint32 {
		b := unxz(filepath.Join(run1, name))
		v := make([]uint32, len(b)/2)
		for i := range v {
			v[i] = uint32(binary.LittleEndian.Uint16(b[2*i:]))
		}
		return v
	}
	// Half a period of MUFU.SIN at 2^-25: the even points from run 1's grid
	// at 2^-24, the odd ones from run 2.
	sin24, odd := seq(run1, "dom_sin", 1<<24), u32(filepath.Join(run2, "sin_odd25.bin.xz"))
	sin := make([]uint32, 1<<24)
	for j := 0; j < 1<<23; j++ {
		sin[2*j], sin[2*j+1] = sin24[j], odd[j]
	}
	var tanh []uint32
	meta := []byte{0x77}
	for c := 0x77; c <= 0x81; c++ {
		v := seq(run1, fmt.Sprintf("tanh_%03x", c), 0)
		k := 0
		for 1<<k < len(v) {
			k++
		}
		if 1<<k != len(v) {
			log.Fatalf("tanh class %x: %d entries", c, len(v))
		}
		meta = append(meta, byte(k))
		tanh = append(tanh, v...)
	}
	var half []uint32
	for _, n := range []string{"tab_ex2_f16.bin.xz", "tab_ex2_bf16.bin.xz", "tab_tanh_f16.bin.xz", "tab_tanh_bf16.bin.xz"} {
		half = append(half, u16(n)...)
	}
	tables := []struct {
		name string
		v    []uint32
		meta []byte
	}{
		{"rcp", seq(run1, "dom_rcp", 1<<23), nil},
		{"rsq", seq(run1, "dom_rsqrt", 1<<24), nil},
		{"sqrt", seq(run1, "dom_sqrt", 1<<24), nil},
		{"ex2", seq(run1, "dom_ex2", 1<<23), nil},
		{"lg2", seq(run1, "dom_lg2", 1<<24), nil},
		{"sin", sin, nil},
		{"tanh", tanh, meta},
		{"half", half, nil},
	}
	for _, t := range tables {
		var b bytes.Buffer
		b.WriteString("MUF1")
		binary.Write(&b, binary.LittleEndian, uint32(len(t.v)))
		binary.Write(&b, binary.LittleEndian, uint32(len(t.meta)))
		b.Write(t.meta)
		b.Write(encSeq(t.v))
		z := zstd(b.Bytes())
		write(filepath.Join(soft, "internal", "gpumath", "testdata", "mufu", t.name+".zst"), z)
		log.Printf("internal/gpumath/testdata/mufu/%s.zst: %d entries, %d bytes", t.name, len(t.v), len(z))
	}

	// Test reference: per op, the GPU's hash of each input class (the top
	// nine bits: 2^23 inputs) and the results at the samples the test
	// regenerates (sampleInputs in mufu_test.go: the specials, then the
	// first four of sixteen per class).
	var ref bytes.Buffer
	for _, op := range []string{"ex2_ftz", "ex2", "lg2_ftz", "lg2", "rcp_ftz", "rcp", "rsqrt_ftz", "rsqrt",
		"sqrt_ftz", "sqrt", "sin_ftz", "sin", "cos_ftz", "cos", "tanh", "rawsin", "rawcos",
		"ex2_f16x2", "ex2_bf16x2", "tanh_f16x2", "tanh_bf16x2"} {
		h := unxz(filepath.Join(run1, "hash_"+op+".bin.xz"))
		cls := make([]uint64, 512)
		for b := 0; b < 4096; b++ {
			cls[b>>3] += binary.LittleEndian.Uint64(h[8*b:])
		}
		s := u32(filepath.Join(run1, "samples_"+op+".bin.xz"))
		const nspecial = 21
		var out []uint32
		for i := 0; i < nspecial; i++ {
			out = append(out, s[2*i+1])
		}
		for c := 0; c < 512; c++ {
			for j := 0; j < 4; j++ {
				out = append(out, s[2*(nspecial+16*c+j)+1])
			}
		}
		ref.WriteByte(byte(len(op)))
		ref.WriteString(op)
		binary.Write(&ref, binary.LittleEndian, cls)
		binary.Write(&ref, binary.LittleEndian, uint32(len(out)))
		binary.Write(&ref, binary.LittleEndian, out)
	}
	z := zstd(ref.Bytes())
	write(filepath.Join(soft, "internal", "exec", "testdata", "mufu", "h100.zst"), z)
	log.Printf("internal/exec/testdata/mufu/h100.zst: %d bytes", len(z))
}

// encSeq writes each value as the zigzag residual against the linear
// extrapolation a[i-1] + ⌊(a[i-1]-a[i-65])/64⌋, one byte, or 255 and the
// residual as 8 bytes. Smooth tables become runs of small bytes.
func encSeq(a []uint32) []byte {
	const L = 64
	o := make([]byte, 0, len(a)+64)
	for i := range a {
		var p int64
		if i >= 1 {
			p = int64(a[i-1])
		}
		if i >= L+1 {
			d := int64(a[i-1]) - int64(a[i-1-L])
			q := d / L
			if d%L != 0 && d < 0 {
				q--
			}
			p += q
		}
		r := int64(a[i]) - p
		if z := uint64(r<<1) ^ uint64(r>>63); z < 255 {
			o = append(o, byte(z))
		} else {
			o = append(o, 255)
			o = binary.LittleEndian.AppendUint64(o, uint64(r))
		}
	}
	return o
}

func decSeq(b []byte) []uint32 {
	const L = 64
	var a []uint32
	for len(b) > 0 {
		var r int64
		if b[0] == 255 {
			r = int64(binary.LittleEndian.Uint64(b[1:9]))
			b = b[9:]
		} else {
			r = int64(b[0]>>1) ^ -int64(b[0]&1)
			b = b[1:]
		}
		i := len(a)
		var p int64
		if i >= 1 {
			p = int64(a[i-1])
		}
		if i >= L+1 {
			d := int64(a[i-1]) - int64(a[i-1-L])
			q := d / L
			if d%L != 0 && d < 0 {
				q--
			}
			p += q
		}
		a = append(a, uint32(p+r))
	}
	return a
}

// seq reads a run-1 recording and checks it against the manifest's FNV-1a
// (whose offset basis, as mufu.cu has it, lost its last digit).
func seq(dir, name string, n int) []uint32 {
	a := decSeq(unxz(filepath.Join(dir, name+".seq.xz")))
	if n != 0 && len(a) != n {
		log.Fatalf("%s: %d entries, want %d", name, len(a), n)
	}
	man, err := os.ReadFile(filepath.Join(dir, "manifest.txt"))
	if err != nil {
		log.Fatal(err)
	}
	h := uint64(1469598103934665603)
	for _, v := range a {
		for k := 0; k < 4; k++ {
			h ^= uint64(byte(v >> (8 * k)))
			h *= 1099511628211
		}
	}
	want := fmt.Sprintf("fnv=%016x", h)
	for _, l := range strings.Split(string(man), "\n") {
		if strings.HasPrefix(l, name+".seq ") {
			if !strings.Contains(l, want) {
				log.Fatalf("%s: decoded data does not match the manifest (%s): %s", name, want, l)
			}
			return a
		}
	}
	log.Fatalf("%s: not in the manifest", name)
	return nil
}

func u32(path string) []uint32 {
	b := unxz(path)
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

func unxz(path string) []byte {
	out, err := exec.Command("xz", "-dc", path).Output()
	if err != nil {
		log.Fatalf("xz -dc %s: %v", path, err)
	}
	return out
}

func zstd(b []byte) []byte {
	cmd := exec.Command("zstd", "-19", "--long=24", "-q", "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("zstd: %v", err)
	}
	return out
}

func write(path string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
