package soft

import (
	"fmt"
	"strings"
	"testing"
)

// TestMufuPTX runs every form as PTX through LibraryLoad and Launch on 128
// recorded samples spread over the input classes (the scalar half forms on
// the low halves of their x2 form's samples).
func TestMufuPTX(t *testing.T) {
	refs := loadMufuRef(t)
	in := mufuSampleInputs()
	d := New(Options{Deterministic: true})
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
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
			c := &instCase{Name: k, PTX: k + " %d0, %a0;", In: []string{ty}, Out: []string{ty}}
			m := uint32(mask(uint(typeBits(ty))))
			var idx []int
			for i := 0; i < len(in); i += 16 {
				idx = append(idx, i)
				c.Rows = append(c.Rows, instRow{Args: []string{fmt.Sprintf("%#x", in[i]&m)}})
			}
			got, err := runCase(t, d, ctx, c)
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			for r, i := range idx {
				if want := ref.out[i] & m; uint32(got[r][0]) != want {
					t.Errorf("%s %#x: got %#x, H100 %#x", k, in[i]&m, got[r][0], want)
				}
			}
		}
	}
}
