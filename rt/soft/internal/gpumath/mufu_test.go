package gpumath

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/klauspost/compress/zstd"
)

// The tables decode to what the hardware gave at a few points every
// implementation must agree on.
func TestMufuTables(t *testing.T) {
	if *update {
		updateMufu(t)
		return
	}
	for _, c := range []struct {
		tab  *lazyTable
		i    uint32
		want uint32
	}{
		{tabRcp, 0, 0x3f800000},           // rcp(1) = 1
		{tabRsq, 0, 0x3f800000},           // rsqrt(1) = 1
		{tabSqrt, 0, 0x3f800000},          // sqrt(1) = 1
		{tabEx2, 0, 0x3f800000},           // ex2(0) = 1
		{tabLg2, 1 << 23, 0},              // lg2(1) = 0
		{tabLg2, 0, 0xbf7ffffe},           // lg2(1/2): not -1 on the H100
		{tabSin, 0, 0},                    // sin(0) = 0
		{tabSin, 1 << 23, 0x3f800000},     // sin(π/2) = 1
		{tabHalf, HalfEx2F16 | 0, 0x3c00}, // ex2.f16(0) = 1
	} {
		if got := c.tab.at(c.i); got != c.want {
			t.Errorf("%s[%#x] = %#08x, want %#08x", c.tab.name, c.i, got, c.want)
		}
	}
	// Every embedded compact table reproduces every entry of its recording
	// (with -update it is first made from the recording).
	for _, lt := range []*lazyTable{tabRcp, tabRsq, tabSqrt, tabEx2, tabLg2, tabSin, tabTanh, tabHalf} {
		v, meta := recording(t, lt.name)
		if string(lt.header()) != string(meta) {
			t.Fatalf("%s: meta %x, want %x", lt.name, lt.header(), meta)
		}
		if lt.n != len(v) {
			t.Fatalf("%s: %d entries, want %d", lt.name, lt.n, len(v))
		}
		// Under -race every 64th entry; all of them in go test.
		step := 1
		if devmem.Race {
			step = 64
		}
		for i := 0; i < len(v); i += step {
			want := v[i]
			if got := lt.at(uint32(i)); got != want {
				t.Fatalf("%s: entry %d: compact form gives %#08x, want %#08x", lt.name, i, got, want)
			}
		}
		ws, exc, mem := map[uint]int{}, 0, 0
		for k := range lt.offs[1:] {
			s := lt.seg[k].Load()
			ws[s.w]++
			exc += len(s.excIdx)
			mem += 4*len(s.anchor) + len(s.code) + 8*len(s.excIdx)
		}
		t.Logf("%s: %d entries, %d segments (by correction bits %v), %d exceptions, %d bytes embedded, %d in memory",
			lt.name, len(v), len(lt.offs)-1, ws, exc, len(lt.z), mem)
	}
}

// recording is testdata/mufu/name.zst, the H100's results.
func recording(t *testing.T, name string) (v []uint32, meta []byte) {
	z, err := os.ReadFile(filepath.Join("testdata", "mufu", name+".zst"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := zstd.NewReader(nil)
	b, err := d.DecodeAll(z, nil)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	v, meta, err = decodeMufu(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v, meta
}

// updateMufu writes the embedded compact tables from the recordings.
func updateMufu(t *testing.T) {
	for _, lt := range []*lazyTable{tabRcp, tabRsq, tabSqrt, tabEx2, tabLg2, tabSin, tabTanh, tabHalf} {
		v, meta := recording(t, lt.name)
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		enc := marshalMufu(v, meta, e)
		e.Close()
		if err := os.WriteFile(filepath.Join("mufu", lt.name+".tab.zst"), enc, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote mufu/%s.tab.zst (%d bytes): run the test again to check it", lt.name, len(enc))
	}
}

var update = flag.Bool("update", false, "rewrite mufu/*.tab.zst from the recordings in testdata/mufu")

func TestDecodeMufuErrors(t *testing.T) {
	for _, b := range [][]byte{
		nil,
		[]byte("MUF0\x01\x00\x00\x00\x00\x00\x00\x00\x00"),
		[]byte("MUF1\x02\x00\x00\x00\x00\x00\x00\x00\x00"),     // one entry of two
		[]byte("MUF1\x01\x00\x00\x00\x00\x00\x00\x00\xff\x01"), // truncated escape
		[]byte("MUF1\x01\x00\x00\x00\x09\x00\x00\x00\x00"),     // meta past the end
	} {
		if _, _, err := decodeMufu(b); err == nil {
			t.Errorf("decodeMufu(%q) succeeded", b)
		}
	}
	for _, b := range [][]byte{
		nil,
		[]byte("MUF1\x01\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"),
		[]byte("MUF2\x01\x00\x00\x00\x03\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"), // w = 3
		[]byte("MUF2\x01\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"), // no payload
		[]byte("MUF2\x01\x00\x04\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"), // more than a segment
	} {
		if _, err := unmarshalMufuTable(b); err == nil {
			t.Errorf("unmarshalMufuTable(%q) succeeded", b)
		}
	}
	for _, z := range []string{
		"",
		"MUF2\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"MUF3\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", // 1 entry, 2 segments
		"MUF3\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00", // frames missing
		"MUF3\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00",                 // offsets missing
	} {
		if err := (&lazyTable{z: z}).parseErr(); err == nil {
			t.Errorf("parseErr(%q) succeeded", z)
		}
	}
}
