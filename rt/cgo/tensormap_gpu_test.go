//go:build cgo

package cgo

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/rttest"
	"github.com/cugen/cugen/rt/soft"
	"github.com/cugen/cugen/rt/tensormap"
)

// TestTensorMapEncodings asks the driver for every tensor map of
// rttest.TensorMapCases (directly, past tensormap's checks) and compares: the
// driver must refuse what rt refuses and encode what rt accepts ("probe/"
// cases only show what the driver does), and rt/soft's encoding must be the
// driver's, byte for byte, wherever both encode. With $CUGEN_TMAP_OUT set it
// writes the driver's results there, the form of rt/soft's
// testdata/tensormaps_h100.txt.
func TestTensorMapEncodings(t *testing.T) {
	d := gpu(t)
	ctx := primary(t, d)
	defer ctx.Release()
	buf, err := rt.Alloc[byte](ctx, 1<<20)
	must(t, err)
	defer buf.Free()
	base := (buf.Ptr.Addr() + 1023) &^ 1023
	name, _ := d.DeviceName(0)
	sd := soft.New(soft.Options{})
	var rec strings.Builder
	fmt.Fprintf(&rec, "# rttest.TensorMapCases as cuTensorMapEncodeTiled/Im2col encoded them on %s, CUDA %s:\n", name, versionString())
	fmt.Fprintf(&rec, "# a case's name, a tab, and its 128 bytes in hex or the error's CUresult.\nbase %#x\n", uint64(base))
	var same, differ, softNo, refused int
	for _, c := range rttest.TensorMapCases(base) {
		var m, sm tensormap.Map
		var err, serr, verr error
		if c.Tiled != nil {
			m, err = d.EncodeTiled(c.Tiled)
			sm, serr = sd.EncodeTiled(c.Tiled)
			verr = c.Tiled.Validate()
		} else {
			m, err = d.EncodeIm2col(c.Im2col)
			sm, serr = sd.EncodeIm2col(c.Im2col)
			verr = c.Im2col.Validate()
		}
		probe := strings.HasPrefix(c.Name, "probe/")
		b := m.Bytes()
		result := hex.EncodeToString(b[:])
		if err != nil {
			result = fmt.Sprintf("error %d", rt.CodeOf(err))
			refused++
		}
		fmt.Fprintf(&rec, "%s\t%s\n", c.Name, result)
		switch {
		case probe:
			t.Logf("%s: driver %v, rt %v, soft %v", c.Name, err, verr, serr)
		case verr != nil && err == nil:
			t.Errorf("%s: rt refuses it (%v), the driver encodes it", c.Name, verr)
		case verr == nil && err != nil:
			t.Errorf("%s: rt accepts it, the driver refuses it: %v", c.Name, err)
		}
		switch {
		case err == nil && serr == nil && sm == m:
			same++
		case err == nil && serr == nil:
			differ++
			sb := sm.Bytes()
			t.Errorf("%s: soft's encoding differs at %s\n driver %x\n soft   %x", c.Name, diffRanges(b[:], sb[:]), b, sb)
		case err == nil && rt.CodeOf(serr) == rt.ErrNotSupported:
			softNo++
			t.Logf("%s: soft does not encode it: %v", c.Name, serr)
		case err == nil:
			t.Errorf("%s: the driver encodes it, soft refuses it: %v", c.Name, serr)
		case serr == nil:
			t.Errorf("%s: the driver refuses it (%v), soft encodes it", c.Name, err)
		}
	}
	if path := os.Getenv("CUGEN_TMAP_OUT"); path != "" {
		must(t, os.WriteFile(path, []byte(rec.String()), 0o644))
	}
	line := fmt.Sprintf("TMAP-ENCODINGS soft = driver: %d, differ: %d, soft does not encode: %d, driver refuses: %d", same, differ, softNo, refused)
	t.Log(line)
	fmt.Println(line)
}

// diffRanges lists the byte ranges where a and b differ, as "8..11 55".
func diffRanges(a, b []byte) string {
	var out []string
	for i := 0; i < len(a); i++ {
		if a[i] == b[i] {
			continue
		}
		j := i
		for j+1 < len(a) && a[j+1] != b[j+1] {
			j++
		}
		if j == i {
			out = append(out, fmt.Sprint(i))
		} else {
			out = append(out, fmt.Sprintf("%d..%d", i, j))
		}
		i = j
	}
	return strings.Join(out, " ")
}
