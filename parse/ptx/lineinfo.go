package ptx

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Line information: the .file table names source files by number, and a
// .loc directive in a body gives the source position of the instructions
// after it, up to the next .loc or the end of the function. nvcc writes
// them with -lineinfo (or -G), clang with -gline-tables-only (or -g); both
// put the .file table at the end of the module, after the bodies whose
// .loc directives name it.

// SrcPos is the place in the source (CUDA C++, say) that an instruction
// was compiled from, as the PTX's line information gives it: file, line,
// and column (0 when the compiler gives none). InlinedAt is where the
// function holding the instruction was inlined (nvcc's and clang's .loc
// "inlined_at", nil when it was not), and Func the label of the string that
// names that function in the debug sections ("" when absent).
type SrcPos struct {
	File      string
	Line, Col int
	InlinedAt *SrcPos
	Func      string

	file int // the .file number, resolved into File once the table is known
}

// String is "file:line:col", or "file:line" without a column; a position
// inlined into another adds it: "cugen/include/cugen/math_float.h:35:7
// (inlined at k.cu:12:5)".
func (s *SrcPos) String() string {
	if s == nil {
		return "-"
	}
	file := s.File
	if file == "" {
		file = fmt.Sprintf("file#%d", s.file)
	}
	out := fmt.Sprintf("%s:%d", file, s.Line)
	if s.Col > 0 {
		out += fmt.Sprintf(":%d", s.Col)
	}
	if s.InlinedAt != nil {
		out += " (inlined at " + s.InlinedAt.String() + ")"
	}
	return out
}

// Outermost is the position in the function the instruction's code was
// finally inlined into, usually the one a programmer wrote the call at:
// s itself when it was not inlined.
func (s *SrcPos) Outermost() *SrcPos {
	for s != nil && s.InlinedAt != nil {
		s = s.InlinedAt
	}
	return s
}

// maxFileNumber bounds the .file numbers (and the table, which holds the
// names of those declared).
const maxFileNumber = 1 << 20

// fileDirective parses ".file N "name"" (also ".file N "dir" "name"", and
// nvcc's trailing ", timestamp, size") into p.files.
func (p *parser) fileDirective() {
	dir := p.tok
	line := dir.line
	p.next()
	n := p.smallInt("file number after .file")
	if n > maxFileNumber {
		p.errorAt(dir, ".file number %d exceeds %d", n, maxFileNumber)
	}
	if p.tok.kind != tString || p.tok.line != line {
		p.expected("file name after .file number")
	}
	name := p.unquote(p.tok)
	p.next()
	if p.tok.kind == tString && p.tok.line == line { // directory, then name
		file := p.unquote(p.tok)
		p.next()
		if !path.IsAbs(file) && name != "" {
			file = name + "/" + file
		}
		name = file
	}
	for p.tok.kind != tEOF && p.tok.line == line {
		p.next() // ", timestamp, size"
	}
	if p.files == nil {
		p.files = map[int]string{}
	}
	if name != "" {
		name = path.Clean(name) // clang's "./k.cu"
	}
	p.files[n] = name
}

func (p *parser) unquote(t token) string {
	s, err := strconv.Unquote(t.text)
	if err != nil {
		return t.text[1 : len(t.text)-1] // PTX's escapes are C's; keep the text as written
	}
	return s
}

// locDirective parses ".loc F L C [, function_name label[+N]] [, inlined_at
// F L C]" and makes the position the one of the instructions that follow;
// line 0 (code the compiler made, belonging to no line) is no position.
// Operands it does not know end the directive, as a .loc carries nothing
// else that cugen keeps.
func (p *parser) locDirective() {
	line := p.tok.line
	text := p.sc.src[p.tok.off:]
	if eol := strings.IndexByte(text, '\n'); eol >= 0 {
		text = text[:eol]
	}
	p.next()
	pos, ok := p.locTriple(line)
	for ok && p.is(",") && p.tok.line == line {
		p.next()
		switch {
		case p.tok.kind == tIdent && p.tok.text == "function_name" && p.tok.line == line:
			p.next()
			if p.tok.kind == tIdent && p.tok.line == line {
				pos.Func = p.tok.text
				p.next()
			}
			if p.is("+") && p.tok.line == line {
				p.next()
				p.next()
			}
		case p.tok.kind == tIdent && p.tok.text == "inlined_at" && p.tok.line == line:
			p.next()
			at, okAt := p.locTriple(line)
			if okAt && at.Line > 0 {
				pos.InlinedAt = at
			}
			ok = okAt
		default:
			ok = false
		}
	}
	for p.tok.kind != tEOF && p.tok.line == line {
		p.next()
	}
	if pos != nil && pos.InlinedAt == nil {
		pos.InlinedAt = inlinedFromComment(text)
	}
	if pos == nil || pos.Line == 0 || p.mode == checkBodies {
		p.loc = nil // ParseChecked keeps no statement, and no position
		return
	}
	for q := pos; q != nil; q = q.InlinedAt {
		if q.File == "" {
			p.pending = append(p.pending, q) // named by number: resolved once the table is known
		}
	}
	p.loc = pos
}

// inlinedFromComment reads the call sites clang writes in a .loc's comment
// instead of an inlined_at ("// k.cu:2:65 @[ k.cu:3:48 ]", nested "@[ a
// @[ b ] ]" for inlining twice) as a chain of positions, the innermost call
// site first; nil when the comment has none.
func inlinedFromComment(line string) *SrcPos {
	_, comment, ok := strings.Cut(line, "//")
	if !ok {
		return nil
	}
	parts := strings.Split(comment, "@[")
	var first, last *SrcPos
	for _, part := range parts[1:] {
		q := parseFileLineCol(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(part), "] ")))
		if q == nil {
			return first
		}
		if first == nil {
			first = q
		} else {
			last.InlinedAt = q
		}
		last = q
	}
	return first
}

// parseFileLineCol reads "file:line:col" (the file may hold colons).
func parseFileLineCol(s string) *SrcPos {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return nil
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j <= 0 {
		return nil
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || line <= 0 || col < 0 {
		return nil
	}
	return &SrcPos{File: path.Clean(s[:j]), Line: line, Col: col}
}

// locTriple reads "F L C" on line; ok is false (and nothing is consumed
// past what matched) when they are not three integers.
func (p *parser) locTriple(line int) (*SrcPos, bool) {
	var v [3]int
	for i := range v {
		if p.tok.kind != tInt || p.tok.line != line {
			return nil, false
		}
		n, err := strconv.ParseUint(p.tok.text, 0, 31)
		if err != nil {
			return nil, false
		}
		v[i] = int(n)
		p.next()
	}
	return &SrcPos{file: v[0], Line: v[1], Col: v[2]}, true
}

// resolveFiles names the files of the positions parsed, from the .file
// table; a number the table lacks leaves File empty (String shows its
// number).
func (p *parser) resolveFiles(files map[int]string) {
	for _, s := range p.pending {
		s.File = files[s.file]
	}
	p.pending = nil
}
