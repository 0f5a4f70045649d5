package fatbin_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// The seed corpora in testdata/fuzz hold small corpus fatbins (every
// compression method, -G identifiers, LTO-IR, sm_100 compat blobs), two
// padded fatbins back to back, and minimal host ELF files around them.

// fuzzLimit keeps Data's allocations small while fuzzing; the decoding
// path is the same as with the default cap.
const fuzzLimit = 4 << 20

func FuzzFatbin(f *testing.F) {
	f.Add([]byte{})
	f.Add(fatbin.Build(nil))
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

func FuzzHostELF(f *testing.F) {
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		secs, err := fatbin.FromELF(bytes.NewReader(data))
		if err != nil {
			var fe *fatbin.FormatError
			if !errors.Is(err, fatbin.ErrNoFatbin) && !errors.As(err, &fe) {
				t.Fatalf("FromELF error is neither ErrNoFatbin nor a FormatError: %v", err)
			}
			return
		}
		for _, s := range secs {
			for _, e := range s.Entries() {
				if e.Offset < s.Offset || e.Offset+int64(len(e.Raw)) > int64(len(data)) {
					t.Fatalf("entry offset %#x outside the file", e.Offset)
				}
				_, _ = e.DataLimit(fuzzLimit)
			}
		}
	})
}
