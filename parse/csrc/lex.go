package csrc

import (
	"fmt"
	goscanner "go/scanner"
	gotoken "go/token"
	"strings"
)

// Pos is a place in a source file: file name, byte offset, and line and
// column counted from 1 (the column in bytes). It prints as file:line:col.
// It is go/token's Position, as in parse/ptx.
type Pos = gotoken.Position

// Error is a syntax error at a position; it reads "file:line:col: message".
// It is go/scanner's Error, as in parse/ptx.
type Error = goscanner.Error

type tokKind uint8

const (
	tIdent tokKind = iota + 1
	tNumber
	tString // a string literal, prefix and quotes included
	tChar
	tPunct
	tHash // the '#' that starts a preprocessing directive
	tEOD  // the end of a directive's line
)

type token struct {
	kind tokKind
	text string
	pos  Pos
	// space says whitespace or a comment precedes the token: #define F(x)
	// is a function-like macro, #define F (x) an object-like one.
	space bool
	// hide lists the macros whose expansion produced the token, which do
	// not expand again in it (the preprocessor's "hide set").
	hide []string
	// doc is the comment group that ends on the line before the token (or
	// on its line, before it) with no token since: a declaration's doc
	// comment, as go/doc takes it, comment markers removed.
	doc string
}

func (t token) is(s string) bool { return (t.kind == tPunct || t.kind == tIdent) && t.text == s }

// lexer splits C++ source into tokens. It drops comments and line splices;
// a preprocessing directive becomes a tHash token, the tokens of its line
// and a tEOD token, for the preprocessor (cpp.go) to interpret.
type lexer struct {
	file        string
	src         string
	off         int
	line, col   int
	lineStart   bool // only whitespace so far on this line
	inDirective bool // between a directive's '#' and the end of its line
	space       bool // whitespace or a comment since the last token
	toks        []token
	// doc is the comment group since the last token, docLine the line its
	// last comment ends on; lastLine is the last token's line (a comment
	// that starts there trails it and is nobody's doc).
	doc      []string
	docLine  int
	lastLine int
}

func lex(file string, src []byte) ([]token, error) {
	l := &lexer{file: file, src: string(src), line: 1, col: 1, lineStart: true}
	if strings.HasPrefix(l.src, "\ufeff") {
		l.off = 3
	}
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		if l.off >= len(l.src) {
			if l.inDirective {
				l.toks = append(l.toks, token{kind: tEOD, pos: l.pos()})
			}
			return l.toks, nil
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
}

func (l *lexer) pos() Pos { return Pos{Filename: l.file, Offset: l.off, Line: l.line, Column: l.col} }

func (l *lexer) peek(i int) byte {
	if l.off+i < len(l.src) {
		return l.src[l.off+i]
	}
	return 0
}

// advance moves over n bytes, tracking lines.
func (l *lexer) advance(n int) {
	for ; n > 0 && l.off < len(l.src); n-- {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
			l.lineStart = true
		} else {
			l.col++
		}
		l.off++
	}
}

func (l *lexer) errorf(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// skipSpace skips whitespace, comments and line splices; it ends a
// directive at its newline and starts one at a '#' that begins a line.
func (l *lexer) skipSpace() error {
	for l.off < len(l.src) {
		c := l.src[l.off]
		if c != '#' || !l.lineStart || l.inDirective {
			l.space = l.space || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' && (l.peek(1) == '/' || l.peek(1) == '*')
		}
		switch {
		case c == '\n' && l.inDirective:
			l.toks = append(l.toks, token{kind: tEOD, pos: l.pos()})
			l.inDirective = false
			l.advance(1)
		case c == '\n':
			l.advance(1)
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.off++
			l.col++
		case c == '\\' && (l.peek(1) == '\n' || l.peek(1) == '\r' && l.peek(2) == '\n'):
			l.advance(1)
			l.lineStartKeep(func() { l.skipNewline() })
		case c == '/' && l.peek(1) == '/':
			line, start := l.line, l.off
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
			l.comment(line, l.src[start+2:l.off])
		case c == '/' && l.peek(1) == '*':
			line, start := l.line, l.off
			if err := l.blockComment(); err != nil {
				return err
			}
			l.comment(line, l.src[start+2:l.off-2])
		case c == '#' && l.lineStart && !l.inDirective:
			l.toks = append(l.toks, token{kind: tHash, text: "#", pos: l.pos()})
			l.doc = l.doc[:0] // a directive between a comment and a declaration parts them
			l.inDirective = true
			l.lineStart = false
			l.space = false
			l.advance(1)
		default:
			return nil
		}
	}
	return nil
}

// lineStartKeep runs f, keeping lineStart as it was: a line splice joins
// two lines into one.
func (l *lexer) lineStartKeep(f func()) {
	ls := l.lineStart
	f()
	l.lineStart = ls
}

func (l *lexer) skipNewline() {
	if l.peek(0) == '\r' {
		l.advance(1)
	}
	if l.peek(0) == '\n' {
		l.advance(1)
	}
}

func (l *lexer) blockComment() error {
	start := l.pos()
	l.advance(2)
	for l.off < len(l.src) {
		if l.src[l.off] == '*' && l.peek(1) == '/' {
			l.advance(2)
			return nil
		}
		l.advance(1)
	}
	return l.errorf(start, "unterminated /* comment")
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigitByte(c) }

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

var puncts = []string{"::", "...", "->", "&&", "||", "==", "!=", "<=", ">=", "##"} // not << and >>: A<B<int>> closes two lists

func (l *lexer) emit(k tokKind, p Pos, start int) {
	t := token{kind: k, text: l.src[start:l.off], pos: p, space: l.space}
	if len(l.doc) > 0 && l.docLine >= p.Line-1 && !l.inDirective {
		d := l.doc
		for len(d) > 0 && d[len(d)-1] == "" {
			d = d[:len(d)-1]
		}
		t.doc = strings.Join(d, "\n")
	}
	l.doc = l.doc[:0]
	l.toks = append(l.toks, t)
	l.lineStart = false
	l.space = false
	l.lastLine = p.Line
}

// comment adds a comment that starts on line to the doc comment group:
// a comment after a blank line starts a new group, one on the line of the
// last token trails that token, and one inside a directive belongs to it.
func (l *lexer) comment(line int, text string) {
	if l.inDirective || len(l.toks) > 0 && line == l.lastLine {
		return
	}
	if len(l.doc) > 0 && line > l.docLine+1 {
		l.doc = l.doc[:0]
	}
	for _, s := range strings.Split(text, "\n") {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "*") && !strings.HasPrefix(s, "*/") {
			s = strings.TrimSpace(s[1:]) // the * of a block comment's continued lines
		}
		s = strings.TrimLeft(s, "/!<") // ///, //!, //<
		l.doc = append(l.doc, strings.TrimSpace(s))
	}
	for len(l.doc) > 0 && l.doc[0] == "" {
		l.doc = l.doc[1:]
	}
	l.docLine = l.line
}

// headerName reports a directive whose next token is a header name,
// #include <...>: the '<' starts one token up to the '>'.
func (l *lexer) headerName() bool {
	n := len(l.toks)
	if !l.inDirective || n < 2 || l.toks[n-2].kind != tHash || l.src[l.off] != '<' {
		return false
	}
	switch l.toks[n-1].text {
	case "include", "include_next", "import", "__has_include":
		return true
	}
	return false
}

func (l *lexer) next() error {
	p, start := l.pos(), l.off
	c := l.src[l.off]
	switch {
	case l.headerName():
		end := strings.IndexAny(l.src[l.off:], ">\n")
		if end < 0 || l.src[l.off+end] != '>' {
			return l.errorf(p, "unterminated header name")
		}
		l.advance(end + 1)
		l.emit(tString, p, start)
	case isIdentStart(c):
		for l.off < len(l.src) && isIdentChar(l.src[l.off]) {
			l.off++
			l.col++
		}
		word := l.src[start:l.off]
		switch q := l.peek(0); {
		case q == '"' && strings.HasSuffix(word, "R") && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"):
			return l.rawString(p, start)
		case q == '"' && (word == "u8" || word == "u" || word == "U" || word == "L"):
			return l.quoted(p, start, '"', tString)
		case q == '\'' && (word == "u8" || word == "u" || word == "U" || word == "L"):
			return l.quoted(p, start, '\'', tChar)
		}
		l.emit(tIdent, p, start)
	case isDigitByte(c) || c == '.' && isDigitByte(l.peek(1)):
		for l.off < len(l.src) {
			d := l.src[l.off]
			switch {
			case (d == 'e' || d == 'E' || d == 'p' || d == 'P') && (l.peek(1) == '+' || l.peek(1) == '-'):
				l.off += 2
				l.col += 2
			case d == '\'' && isIdentChar(l.peek(1)): // a digit separator, 1'000
				l.off++
				l.col++
			case isIdentChar(d) || d == '.':
				l.off++
				l.col++
			default:
				l.emit(tNumber, p, start)
				return nil
			}
		}
		l.emit(tNumber, p, start)
	case c == '"':
		return l.quoted(p, start, '"', tString)
	case c == '\'':
		return l.quoted(p, start, '\'', tChar)
	default:
		for _, s := range puncts {
			if strings.HasPrefix(l.src[l.off:], s) {
				l.advance(len(s))
				l.emit(tPunct, p, start)
				return nil
			}
		}
		l.advance(1)
		l.emit(tPunct, p, start)
	}
	return nil
}

// quoted lexes a string or character literal from its opening quote.
func (l *lexer) quoted(p Pos, start int, q byte, k tokKind) error {
	l.advance(1)
	for l.off < len(l.src) {
		switch l.src[l.off] {
		case '\\':
			l.advance(2)
			continue
		case '\n':
			return l.errorf(p, "unterminated literal")
		case q:
			l.advance(1)
			l.emit(k, p, start)
			return nil
		}
		l.advance(1)
	}
	return l.errorf(p, "unterminated literal")
}

// rawString lexes R"delim( ... )delim".
func (l *lexer) rawString(p Pos, start int) error {
	l.advance(1) // "
	open := strings.IndexByte(l.src[l.off:], '(')
	if open < 0 || open > 16 || strings.ContainsAny(l.src[l.off:l.off+open], " \\)\n\t") {
		return l.errorf(p, "malformed raw string literal")
	}
	end := ")" + l.src[l.off:l.off+open] + "\""
	l.advance(open + 1)
	i := strings.Index(l.src[l.off:], end)
	if i < 0 {
		return l.errorf(p, "unterminated raw string literal")
	}
	l.advance(i + len(end))
	l.emit(tString, p, start)
	return nil
}
