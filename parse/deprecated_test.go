package parse

import (
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// TestDeprecatedSniff: parse.Sniff and parse.Format still work, with the
// values and spellings they had (1 to 4: ptx, cubin, fatbin, host-elf).
func TestDeprecatedSniff(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want Format
		val  int
		name string
	}{
		{[]byte("// comment\n.version 8.0\n.target sm_90\n"), FormatPTX, 1, "ptx"},
		{append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 13)...), FormatHostELF, 4, "host-elf"},
		{append(append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 11)...), 190, 0), FormatCubin, 2, "cubin"},
		{[]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0}, FormatFatbin, 3, "fatbin"},
		{[]byte("hello"), 0, 0, ""},
	} {
		got := Sniff(c.data)
		if got != c.want || int(got) != c.val || got != fatbin.Sniff(c.data) || c.name != "" && got.String() != c.name {
			t.Errorf("Sniff(%q) = %v (%d), want %v (%d)", c.data, got, got, c.want, c.val)
		}
	}
	if FormatCubin != 2 || FormatCubin.String() != "cubin" {
		t.Errorf("FormatCubin = %d %q", FormatCubin, FormatCubin)
	}
	var m Module
	m.Format = FormatPTX // the old spelling still types Module.Format
	if m.Format != fatbin.FormatPTX {
		t.Errorf("Module.Format %v", m.Format)
	}
}
