package gen

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

// TestNotUTF8Symbol: a kernel or variable whose symbol is not valid UTF-8
// (a cubin may name one so) is refused with its name escaped, not with
// gofmt's "illegal UTF-8 encoding" and the generated source.
func TestNotUTF8Symbol(t *testing.T) {
	k := &parse.Kernel{Name: "kb\xffg", Params: []*parse.Param{{Ordinal: 0, Offset: 0, Size: 8, Align: 8, PTXType: "u64"}}}
	m := &parse.Module{Source: "bad.cubin", Kernels: []*parse.Kernel{k}}
	_, err := Generate(m, Options{Package: "k", ImageFile: "bad.cubin"})
	var ke *KernelError
	if !errors.As(err, &ke) || !strings.Contains(err.Error(), `kernel "kb\xffg": the symbol is not valid UTF-8`) || strings.Contains(err.Error(), "package k") {
		t.Errorf("kernel: %v", err)
	}
	m = &parse.Module{Source: "bad.cubin", Kernels: []*parse.Kernel{{Name: "ok"}}, Globals: []*parse.Global{{Name: "g\xfe", Space: "global", PTXType: "u32", ElemSize: 4, Count: 1, Size: 4, Align: 4, Refs: 1, Visible: true}}}
	// Not wrapped, it is listed escaped among the variables left out.
	src, err := Generate(m, Options{Package: "k", ImageFile: "bad.cubin"})
	if err != nil || !strings.Contains(string(src), `"g\xfe"`) {
		t.Errorf("variable not wrapped: %v\n%s", err, src)
	}
	// Asked for, it is refused.
	_, err = Generate(m, Options{Package: "k", ImageFile: "bad.cubin", Globals: regexp.MustCompile("g")})
	if err == nil || !strings.Contains(err.Error(), `variable "g\xfe"`) || !strings.Contains(err.Error(), "-globals") {
		t.Errorf("variable: %v", err)
	}
}

// TestRenderErrorShort: a formatting failure shows the line it names and
// a few around it, not the whole file.
func TestRenderErrorShort(t *testing.T) {
	src := strings.Repeat("line\n", 100)
	err := renderError(errors.New("Error 50:3: illegal UTF-8 encoding (and 4 more errors) while formatting source:\n" + src))
	msg := err.Error()
	if n := strings.Count(msg, "\n"); n > 6 || !strings.Contains(msg, "  50  line") || !strings.Contains(msg, "illegal UTF-8 encoding") {
		t.Errorf("%d lines:\n%s", n+1, msg)
	}
}

// TestNamesExported: kernels whose names start with a letter that has no
// upper case, or a digit, get exported Go names (a K in front).
func TestNamesExported(t *testing.T) {
	for in, want := range map[string]string{"内g": "K内g", "ßig": "Kßig", "2d": "K2d", "élan": "Élan", "vecAdd": "VecAdd"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	if id := boundedName(strings.Repeat("内", 30), "sym"); !strings.HasPrefix(id, strings.Repeat("内", 16)) || !utf8Valid(id) {
		t.Errorf("boundedName cut a letter: %q", id)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
