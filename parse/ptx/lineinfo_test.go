package ptx

import (
	"strings"
	"testing"
)

// instrs lists a body's instructions, blocks flattened.
func instrs(b *Block) []*Instr {
	var out []*Instr
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *Instr:
			out = append(out, s)
		case *Block:
			out = append(out, instrs(s)...)
		}
	}
	return out
}

// lineInfoPTX has clang's layout (the .file table after the bodies,
// comments after each .loc, which hold the call sites of inlined code),
// nvcc's function_name and inlined_at, a line 0,
// a .file with a directory and a name, and a .loc of an undeclared file.
const lineInfoPTX = `.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	.loc 1 3 7                              // k.cu:3:7
	mov.u32 %r2, %ntid.x;
$L__tmp0:
	.loc 2 35 42, function_name $L__info_string0, inlined_at 1 4 18
	add.s32 %r3, %r1, %r2;
	.loc 2 36 1                             // cugen/include/cugen/math_common.h:36:1 @[ src/k.cu:5:2 @[ ./src/k.cu:9:3 ] ]
	mul.lo.s32 %r3, %r3, %r2;
	.loc 1 0 7
	ld.param.u64 %rd1, [p];
	.loc 3 9 0
	{
	cvta.to.global.u64 %rd2, %rd1;
	}
	.loc 9 1 1
	st.global.u32 [%rd2], %r3;
	ret;
}
.visible .entry j()
{
	ret;
}
	.file	1 "./src/k.cu"
	.file	2 "cugen/include" "cugen/math_common.h"
	.file	3 "/usr/include/x.h", 1700000000, 1234
`

// TestLineInfo: each instruction carries the position of the .loc before it
// in its function, files named from the .file table that follows the
// bodies, inlined_at kept; line 0 and code before any .loc have none; the
// same through Parse and through ParseHeaders + ParseBody.
func TestLineInfo(t *testing.T) {
	full, err := Parse("k.ptx", []byte(lineInfoPTX))
	if err != nil {
		t.Fatal(err)
	}
	if got := full.Files; len(got) != 3 || got[1] != "src/k.cu" || got[2] != "cugen/include/cugen/math_common.h" || got[3] != "/usr/include/x.h" {
		t.Errorf("Files = %q", got)
	}
	heads, err := ParseHeaders("k.ptx", []byte(lineInfoPTX))
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := heads.ParseBody(heads.Funcs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"-",            // mov %tid: before any .loc
		"src/k.cu:3:7", // mov %ntid
		"cugen/include/cugen/math_common.h:35:42 (inlined at src/k.cu:4:18)",                         // add
		"cugen/include/cugen/math_common.h:36:1 (inlined at src/k.cu:5:2 (inlined at src/k.cu:9:3))", // mul: clang's comment
		"-",                  // ld.param after line 0
		"/usr/include/x.h:9", // cvta in a nested block, column 0
		"file#9:1:1",         // st to an undeclared file
		"file#9:1:1",         // ret
	}
	for name, body := range map[string]*Block{"Parse": full.Funcs[0].Body, "ParseBody": lazy} {
		ins := instrs(body)
		if len(ins) != len(want) {
			t.Fatalf("%s: %d instructions", name, len(ins))
		}
		for i, in := range ins {
			if got := in.Src.String(); got != want[i] {
				t.Errorf("%s: %s (line %d): Src %s, want %s", name, in.Op, in.Pos.Line, got, want[i])
			}
		}
		add := ins[2].Src
		if add.Func != "$L__info_string0" || add.Outermost().String() != "src/k.cu:4:18" || ins[1].Src.Outermost() != ins[1].Src {
			t.Errorf("%s: Func %q, Outermost %v", name, add.Func, add.Outermost())
		}
		if got := ins[3].Src.Outermost().String(); got != "src/k.cu:9:3" {
			t.Errorf("%s: the mul's outermost position %s, want src/k.cu:9:3", name, got)
		}
		if ins[6].Src != ins[7].Src {
			t.Errorf("%s: the instructions after one .loc do not share its SrcPos", name)
		}
	}
	// A .loc does not carry over into the next function.
	if in := instrs(full.Funcs[1].Body)[0]; in.Src != nil {
		t.Errorf("j's ret has %v from k's last .loc", in.Src)
	}
	// ParseChecked keeps no statements, and its table still.
	checked, err := ParseChecked("k.ptx", []byte(lineInfoPTX))
	if err != nil || len(checked.Files) != 3 {
		t.Errorf("ParseChecked: %v, Files %q", err, checked.Files)
	}
}

// TestLineInfoCorpus: nvcc -G's and clang -g's PTX (the corpus) carry a
// position on most instructions, each naming a file of the table.
func TestLineInfoCorpus(t *testing.T) {
	for _, path := range []string{"testdata/more_sm90_G.ptx", "testdata/clang/clang_sm90_g.ptx"} {
		m, _ := parseFile(t, path)
		var with, all int
		for _, f := range m.Funcs {
			if f.Body == nil {
				continue
			}
			for _, in := range instrs(f.Body) {
				all++
				if in.Src == nil {
					continue
				}
				with++
				if in.Src.File == "" || in.Src.Line <= 0 {
					t.Fatalf("%s:%d: %s has position %v", path, in.Pos.Line, in.Op, in.Src)
				}
			}
		}
		if with*2 < all {
			t.Errorf("%s: %d of %d instructions have a source position", path, with, all)
		}
		t.Logf("%s: %d of %d instructions have a source position; files %v", path, with, all, m.Files)
	}
}

// TestLineInfoBad: line information the parser cannot read is no position,
// never an error, except a .file that is no .file.
func TestLineInfoBad(t *testing.T) {
	for _, loc := range []string{".loc", ".loc 1", ".loc 1 x 2", ".loc 1 2 99999999999", ".loc 1 2 3, inlined_at 1", ".loc 1 2 3, what 4"} {
		src := strings.Replace(lineInfoPTX, ".loc 1 3 7", loc, 1)
		m, err := Parse("k.ptx", []byte(src))
		if err != nil {
			t.Errorf("%q: %v", loc, err)
			continue
		}
		if s := instrs(m.Funcs[0].Body)[1].Src; s != nil && loc != ".loc 1 2 3, inlined_at 1" && loc != ".loc 1 2 3, what 4" {
			t.Errorf("%q: position %v", loc, s)
		}
	}
	for _, file := range []string{".file", ".file x", ".file 1", ".file 99999999 \"a\""} {
		src := strings.Replace(lineInfoPTX, `.file	3 "/usr/include/x.h", 1700000000, 1234`, file, 1)
		if _, err := Parse("k.ptx", []byte(src)); err == nil {
			t.Errorf("%q parsed", file)
		}
	}
}
