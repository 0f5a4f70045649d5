package fatbin

import "testing"

// TestOptLevel: the deprecated accessor reads bits 8..11 and nothing else.
func TestOptLevel(t *testing.T) {
	for f, want := range map[Flags]int{0: 0, 0x300: 3, 0xF00: 15, FlagLZ4 | FlagHostLinux | 0x200: 2, 0xF0FF: 0} {
		if got := f.OptLevel(); got != want {
			t.Errorf("Flags(%#x).OptLevel() = %d, want %d", uint64(f), got, want)
		}
	}
}
