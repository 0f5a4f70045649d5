package fatbin

import (
	"bytes"
	"os"
	"testing"
)

// TestNewEntryAsNvcc rebuilds the uncompressed entries of an nvcc 13 fatbin
// from their images: NewEntry lays them out byte for byte as nvcc does
// (the sm_100 cubin's compatibility blob aside, which NewEntry does not
// write).
func TestNewEntryAsNvcc(t *testing.T) {
	data, err := os.ReadFile("testdata/k.none.fatbin")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt := 0
	for _, e := range fb.Entries {
		if e.Ext != nil && e.Kind == KindELF {
			continue // the .nv.compat copy
		}
		img, err := e.Data()
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewEntry(Image{Kind: e.Kind, Arch: e.Arch, Major: e.Major, Minor: e.Minor, Data: bytes.TrimRight(img, "\x00")})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(n.Raw, e.Raw) {
			t.Errorf("%s: NewEntry's %d bytes differ from nvcc's %d (header %x vs %x)", e.Target(), len(n.Raw), len(e.Raw), n.Raw[:min(len(n.Raw), 0x50)], e.Raw[:min(len(e.Raw), 0x50)])
		}
		rebuilt++
	}
	if rebuilt != 2 {
		t.Fatalf("rebuilt %d entries, want the sm_90 cubin and the compute_100 PTX", rebuilt)
	}
}

// TestBuildNewEntries writes a fatbin of new entries and reads it back.
func TestBuildNewEntries(t *testing.T) {
	ptx := []byte(".version 7.8\n.target sm_50\n.address_size 64\n")
	var entries []*Entry
	for _, img := range []Image{
		{Kind: KindPTX, Arch: 50, Major: 7, Minor: 8, Data: ptx},
		{Kind: KindPTX, Arch: 90, ArchSpecific: true, Major: 8, Minor: 0, Data: append(ptx, 0)},
		{Kind: KindELF, Arch: 80, Major: 1, Minor: 8, Data: []byte("\x7fELF not really a cubin")},
	} {
		e, err := NewEntry(img)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	fb, err := Parse(Build(entries))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"compute_50", "compute_90a", "sm_80"}
	for i, e := range fb.Entries {
		if e.Target() != want[i] {
			t.Errorf("entry %d: %s, want %s", i, e.Target(), want[i])
		}
		d, err := e.Data()
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == KindPTX && !bytes.Equal(bytes.TrimRight(d, "\x00"), bytes.TrimRight(ptx, "\x00")) {
			t.Errorf("%s: data %q", e.Target(), d)
		}
		if e.Flags.HostOS() != "linux" || !e.Flags.Is64Bit() || e.Compression() != CompressNone {
			t.Errorf("%s: flags %v", e.Target(), e.Flags)
		}
	}
	if fb.Entries[0].Major != 7 || fb.Entries[0].Minor != 8 {
		t.Errorf("PTX version %d.%d, want 7.8", fb.Entries[0].Major, fb.Entries[0].Minor)
	}
	for _, bad := range []Image{{Kind: KindLTOIR, Arch: 90, Data: ptx}, {Kind: KindELF, Arch: 90}, {Kind: KindPTX, Arch: 90, ArchSpecific: true, FamilySpecific: true, Data: ptx}} {
		if _, err := NewEntry(bad); err == nil {
			t.Errorf("NewEntry(%v %d): no error", bad.Kind, bad.Arch)
		}
	}
}

// TestSelect is the driver's choice of image per device.
func TestSelect(t *testing.T) {
	mk := func(kind Kind, arch uint32, flags Flags) *Entry {
		return &Entry{EntryHeader: EntryHeader{Kind: kind, Arch: arch, Flags: flags}}
	}
	sm80, sm86, sm90, sm90a, sm100f := mk(KindELF, 80, 0), mk(KindELF, 86, 0), mk(KindELF, 90, 0), mk(KindELF, 90, FlagArchSpecific), mk(KindELF, 100, FlagFamily)
	c50, c70, c80, c90, c90a := mk(KindPTX, 50, 0), mk(KindPTX, 70, 0), mk(KindPTX, 80, 0), mk(KindPTX, 90, 0), mk(KindPTX, 90, FlagArchSpecific)
	name := func(e *Entry) string {
		if e == nil {
			return "none"
		}
		return e.Target()
	}
	for _, c := range []struct {
		entries  []*Entry
		cc       int
		want     string
		wantSoft string // SelectPTX
	}{
		{[]*Entry{c50, c70, c80}, 90, "compute_80", "compute_80"},
		{[]*Entry{c50, c70, c80}, 75, "compute_70", "compute_70"},
		{[]*Entry{c80, c70, c50}, 60, "compute_50", "compute_50"},
		{[]*Entry{c70}, 60, "none", "none"},
		{[]*Entry{sm90, c80}, 90, "sm_90", "compute_80"},
		{[]*Entry{sm80, c90}, 90, "compute_90", "compute_90"}, // an sm_80 cubin is not for sm_90
		{[]*Entry{sm80, sm86, c70}, 89, "sm_86", "compute_70"},
		{[]*Entry{sm80, sm86, c70}, 80, "sm_80", "compute_70"},
		{[]*Entry{sm90a, c80}, 90, "sm_90a", "compute_80"},
		{[]*Entry{sm90a, c80}, 100, "compute_80", "compute_80"},
		{[]*Entry{c90a, c90, c80}, 90, "compute_90a", "compute_90a"},
		{[]*Entry{c90a, c80}, 100, "compute_80", "compute_80"},
		{[]*Entry{sm100f, c90}, 103, "sm_100f", "compute_90"},
		{[]*Entry{sm100f, c90}, 120, "compute_90", "compute_90"},
	} {
		if got := name(Select(c.entries, c.cc)); got != c.want {
			t.Errorf("Select(%v, %d) = %s, want %s", targets(c.entries), c.cc, got, c.want)
		}
		if got := name(SelectPTX(c.entries, c.cc)); got != c.wantSoft {
			t.Errorf("SelectPTX(%v, %d) = %s, want %s", targets(c.entries), c.cc, got, c.wantSoft)
		}
	}
}

func targets(es []*Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Target())
	}
	return out
}
