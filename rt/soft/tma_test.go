package soft

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// tmaCase is one recorded tensor copy: the H100 driver's tensor map, where
// the box starts, and what the copy produced.
type tmaCase struct {
	name    string
	rank    int
	coords  []int32
	bytes   int
	tmap    []byte
	want    []byte // shared memory (loads) or the tensor (the store)
	isStore bool
}

func readTMACases(t *testing.T) []tmaCase {
	lines := readRecordingLines(t, "tma_h100.txt")
	var cs []tmaCase
	for i := 0; i+2 < len(lines); i++ {
		f := strings.Fields(lines[i])
		if len(f) < 4 || f[1] != "rank" {
			continue
		}
		c := tmaCase{name: f[0], isStore: strings.HasPrefix(f[0], "store")}
		c.rank, _ = strconv.Atoi(f[2])
		for j := 0; j < len(f); j++ {
			switch f[j] {
			case "coords":
				for k := 1; k <= c.rank; k++ {
					v, _ := strconv.Atoi(f[j+k])
					c.coords = append(c.coords, int32(v))
				}
			case "bytes":
				c.bytes, _ = strconv.Atoi(f[j+1])
			}
		}
		var err error
		if c.tmap, err = hex.DecodeString(strings.TrimPrefix(lines[i+1], "map ")); err != nil {
			t.Fatal(err)
		}
		data := lines[i+2][strings.IndexByte(lines[i+2], ' ')+1:]
		if c.want, err = hex.DecodeString(data); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// tmaParams packs tmaLoad's (or, load false, tmaStore's) parameters: the
// 128-byte map (.align 128) first.
func tmaParams(m []byte, load bool, rank int, coords []int32, buf rt.DevPtr, bytes int) []byte {
	p := make([]byte, 168)
	copy(p, m)
	le := binary.LittleEndian
	if load {
		le.PutUint32(p[128:], uint32(rank))
		for i, c := range coords {
			le.PutUint32(p[132+4*i:], uint32(c))
		}
		le.PutUint64(p[152:], uint64(buf))
		le.PutUint32(p[160:], uint32(bytes))
		return p[:164]
	}
	le.PutUint32(p[128:], uint32(coords[0]))
	le.PutUint32(p[132:], uint32(coords[1]))
	le.PutUint64(p[136:], uint64(buf))
	le.PutUint32(p[144:], uint32(bytes))
	return p[:148]
}

// TestTMAH100 runs nvcc's tmaLoad and tmaStore (testdata/async/tma.cu)
// with the tensor maps the H100's driver encoded, pointed at the same
// tensor in soft's memory: boxes inside and across the tensor's edges,
// zero and NaN fills for f16, bf16, f32 and f64, the 32-, 64- and 128-byte
// swizzles, element strides, 1-D to 5-D, and a store that leaves the
// outside untouched; soft must put the H100's bytes where it put them.
func TestTMAH100(t *testing.T) {
	cases := readTMACases(t)
	if len(cases) < 10 {
		t.Fatalf("%d recorded cases", len(cases))
	}
	e := newEnv(t, Options{})
	lib := e.load("async/tma.ptx")
	load, store := e.kernel(lib, "tmaLoad"), e.kernel(lib, "tmaStore")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tensor := make([]byte, 1<<16)
			for i := range tensor {
				tensor[i] = byte(i*7 + 3)
			}
			if c.isStore {
				for i := 0; i < 40*12*4; i++ {
					tensor[i] = 0xAA
				}
			}
			tp := e.buf(tensor)
			m := append([]byte(nil), c.tmap...)
			binary.LittleEndian.PutUint64(m, uint64(tp))
			var err error
			if c.isStore {
				in := make([]byte, 512)
				for i := range in {
					in[i] = byte(i*5 + 1)
				}
				err = e.launchEx(store, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, false, 2, c.coords, e.buf(in), 512))
			} else {
				out := e.buf(make([]byte, c.bytes))
				err = e.launchEx(load, rt.D1(1), rt.D1(128), rt.Dim3{}, 0, tmaParams(m, true, c.rank, c.coords, out, c.bytes))
				tp = out
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(c.want))
			e.get(tp, got)
			bad := 0
			for i := range got {
				if got[i] != c.want[i] {
					if bad < 4 {
						t.Errorf("byte %d = %#02x, the H100 put %#02x", i, got[i], c.want[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d bytes differ", bad, len(got))
			}
		})
	}
}
