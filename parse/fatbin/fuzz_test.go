package fatbin_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"slices"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
	plz4 "github.com/pierrec/lz4/v4"
)

// The seeds are built here, each under 2 KB: the fuzzer minimizes every
// input that finds new code, and with the corpus fatbins (8-40 KB) as seeds
// it spent its whole time minimizing (22 to 375 executions in 90 s). Run a
// fuzzer on its own core with
//
//	go test ./parse/fatbin -run '^$' -fuzz FuzzHostELF -parallel 1 -fuzztime 10m
//
// and, on a slow machine, -fuzzminimizetime 5s to bound each minimization.

// fuzzLimit keeps Data's allocations small while fuzzing; the decoding
// path is the same as with the default cap.
const fuzzLimit = 4 << 20

// fuzzFatbins are small fatbins of every entry form: stored, LZ4, zstd,
// PTX and ELF, an identifier and options, two containers back to back.
func fuzzFatbins() [][]byte {
	ptx := []byte(hostile.SmallPTX)
	lz := make([]byte, plz4.CompressBlockBound(len(ptx)))
	n, _ := plz4.CompressBlock(ptx, lz, nil)
	withExt := hostile.Entry(hostile.KindPTX, 90, 0, append(le.AppendUint32(le.AppendUint32(nil, 72), 8), "-O3\x00\x00\x00\x00\x00"...), 0)
	le.PutUint32(withExt[20:], 64) // options pair at the payload's start
	le.PutUint32(withExt[32:], 72) // identifier: the options text
	le.PutUint32(withExt[36:], 3)
	one := hostile.Fatbin(hostile.Entry(hostile.KindPTX, 70, 0, ptx, 0))
	return [][]byte{
		{},
		fatbin.Build(nil),
		one,
		hostile.Fatbin(hostile.Entry(hostile.KindPTX, 80, hostile.FlagLZ4, lz[:n], uint64(len(ptx))),
			hostile.Entry(hostile.KindELF, 90, hostile.FlagZstd, hostile.ZstdRLE(2, 0), 2<<17)),
		hostile.Fatbin(withExt),
		append(append(slices.Clone(one), 0, 0, 0, 0, 0, 0, 0, 0), one...),
	}
}

func FuzzFatbin(f *testing.F) {
	for _, b := range fuzzFatbins() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = fatbin.Sniff(data)
		fbs, err := fatbin.ParseAll(data)
		if err != nil {
			var fe *fatbin.FormatError
			if !errors.As(err, &fe) || fe.Off < 0 || fe.Off > int64(len(data)) {
				t.Fatalf("ParseAll error without a valid offset: %v", err)
			}
			return
		}
		for _, fb := range fbs {
			checkFuzzFatbin(t, data, fb)
		}
		if fb, err := fatbin.Parse(data); err == nil && len(fbs) != 1 {
			t.Fatalf("Parse accepted input ParseAll split into %d fatbins", len(fbs))
		} else if err == nil {
			checkFuzzFatbin(t, data, fb)
		}
	})
}

func checkFuzzFatbin(t *testing.T, data []byte, fb *fatbin.Fatbin) {
	for _, e := range fb.Entries {
		if e.Offset < 0 || e.Offset+int64(len(e.Raw)) > int64(len(data)) ||
			!bytes.Equal(data[e.Offset:e.Offset+int64(len(e.Raw))], e.Raw) {
			t.Fatalf("entry at %#x does not locate its bytes", e.Offset)
		}
		_ = e.Target() + e.Flags.String() + e.Kind.String() + e.Compression().String() + e.Options()
		if d, err := e.DataLimit(fuzzLimit); err == nil {
			if len(d) > fuzzLimit {
				t.Fatalf("Data returned %d bytes over the %d limit", len(d), fuzzLimit)
			}
		} else {
			var fe *fatbin.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Data error is no FormatError: %v", err)
			}
		}
	}
	// Build round trip: the same entries come back.
	back, err := fatbin.Parse(fatbin.Build(fb.Entries))
	if err != nil {
		t.Fatalf("Parse(Build): %v", err)
	}
	if len(back.Entries) != len(fb.Entries) {
		t.Fatalf("Build round trip: %d entries, want %d", len(back.Entries), len(fb.Entries))
	}
	for i, e := range back.Entries {
		w := fb.Entries[i]
		if e.EntryHeader != w.EntryHeader || !bytes.Equal(e.Raw, w.Raw) || e.Identifier != w.Identifier || !bytes.Equal(e.Ext, w.Ext) {
			t.Fatalf("Build round trip changed entry %d", i)
		}
	}
}

// FuzzHostELF feeds host ELF files to FromELF: sections stored, compressed
// with zlib and zstd (a bomb among them), named by several headers, and
// overlapping. Within a small budget it must fail with a FormatError or
// return sections whose stored fatbins lie in the file without overlapping.
func FuzzHostELF(f *testing.F) {
	one := fuzzFatbins()[2]
	f.Add([]byte("\x7fELF"))
	f.Add(hostile.ELF())
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_ALLOC, Data: one},
		hostile.Section{Name: "__nv_relfatbin", Data: fuzzFatbins()[3]}))
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED,
		Data: hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(one)), hostile.Zlib(one))}))
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED,
		Data: hostile.Compressed(elf.COMPRESS_ZSTD, 4<<17, hostile.ZstdRLE(4, 0))}))
	f.Add(hostile.ELF(hostile.Section{Name: ".nv_fatbin", Data: one}, hostile.Section{Name: ".nv_fatbin", Same: 0},
		hostile.Section{Name: ".nv_fatbin", Same: 0, Skip: 8}))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fatbin.NewBudget(fuzzLimit)
		secs, err := fatbin.FromELF(bytes.NewReader(data), b)
		if err != nil {
			var fe *fatbin.FormatError
			if !errors.Is(err, fatbin.ErrNoFatbin) && !errors.As(err, &fe) {
				t.Fatalf("FromELF error is neither ErrNoFatbin nor a FormatError: %v", err)
			}
			return
		}
		if b.InUse() > fuzzLimit {
			t.Fatalf("%d bytes decompressed in a budget of %d", b.InUse(), fuzzLimit)
		}
		type span struct{ lo, hi int64 }
		var stored []span
		for _, s := range secs {
			for _, fb := range s.Fatbins {
				if s.Compressed {
					continue
				}
				sp := span{fb.Offset, fb.Offset + int64(len(fb.Raw))}
				if sp.lo < s.Offset || sp.hi > int64(len(data)) || !bytes.Equal(data[sp.lo:sp.hi], fb.Raw) {
					t.Fatalf("fatbin at %#x does not locate its bytes", fb.Offset)
				}
				for _, o := range stored {
					if sp.lo < o.hi && o.lo < sp.hi {
						t.Fatalf("fatbins [%#x, %#x) and [%#x, %#x) overlap", sp.lo, sp.hi, o.lo, o.hi)
					}
				}
				stored = append(stored, sp)
			}
			for _, e := range s.Entries() {
				if d, release, err := e.DataBudget(b); err == nil {
					if int64(len(d)) > fuzzLimit {
						t.Fatalf("entry of %d bytes from a budget of %d", len(d), fuzzLimit)
					}
					release()
				}
			}
		}
	})
}
