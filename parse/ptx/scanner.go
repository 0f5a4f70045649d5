package ptx

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // %r1, _Z3fooPf, $L__BB0_2, sm_90a, _
	tDot            // .reg, .b32, .L1::evict_last (text keeps the leading dot)
	tInt            // 123, 0x1F, 017, 0b101, 7U
	tFloat          // 1.5, 2e3, 9.0 (also .version's "major.minor")
	tHexF           // 0f3F800000, 0d3FF0000000000000
	tString         // "..." (text keeps the quotes)
	tPunct          // one of { } [ ] ( ) , ; : @ ! + - = < > |
)

// token is one lexeme. text aliases the source; adj reports that no white
// space or comment separates it from the previous token, which is how
// "ld.global" (modifiers) differs from "ld .global" and "%tid.x" from "%tid .x".
type token struct {
	kind tokKind
	text string
	off  int
	line int
	col  int
	adj  bool
}

// scanner turns source text into tokens. It is a value type so the parser
// can look ahead by copying it.
type scanner struct {
	file      string
	src       string
	off       int
	line      int
	lineStart int
}

func (s *scanner) init(file string, src []byte) {
	// Fatbin-embedded PTX is NUL-terminated (often padded with several NULs).
	n := len(src)
	for n > 0 && src[n-1] == 0 {
		n--
	}
	s.file = file
	s.src = string(src[:n])
	s.off = 0
	s.line = 1
	s.lineStart = 0
	// Skip a UTF-8 byte order mark, as go/scanner does; columns count from after it.
	if strings.HasPrefix(s.src, "\xEF\xBB\xBF") {
		s.off, s.lineStart = 3, 3
	}
}

func (s *scanner) errorAt(off, line, col int, format string, args ...any) {
	panic(bailout{&Error{Pos: Pos{Filename: s.file, Offset: off, Line: line, Column: col}, Msg: fmt.Sprintf(format, args...)}})
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) }

// skipSpace skips white space and comments and reports whether it skipped anything.
func (s *scanner) skipSpace() bool {
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '\n':
			s.off++
			s.line++
			s.lineStart = s.off
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '*':
			line, col := s.line, s.off-s.lineStart+1
			s.off += 2
			for {
				if s.off+1 >= len(s.src) {
					s.errorAt(start, line, col, "comment not terminated")
				}
				if s.src[s.off] == '*' && s.src[s.off+1] == '/' {
					s.off += 2
					break
				}
				if s.src[s.off] == '\n' {
					s.line++
					s.lineStart = s.off + 1
				}
				s.off++
			}
		default:
			return s.off > start
		}
	}
	return s.off > start
}

// scanWord advances over identifier characters.
func (s *scanner) scanWord() {
	for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
		s.off++
	}
}

// next returns the next token; at the end of input it returns tEOF forever.
func (s *scanner) next() token {
	adj := !s.skipSpace()
	t := token{off: s.off, line: s.line, col: s.off - s.lineStart + 1, adj: adj}
	if s.off >= len(s.src) {
		t.kind = tEOF
		return t
	}
	start := s.off
	c := s.src[s.off]
	switch {
	case isLetter(c) || c == '%':
		s.off++
		s.scanWord()
		if c == '%' && s.off == start+1 {
			s.errorAt(start, t.line, t.col, "expected register name after '%%'")
		}
		t.kind = tIdent
	case c == '.':
		s.off++
		if s.off >= len(s.src) || !isIdentChar(s.src[s.off]) {
			s.errorAt(start, t.line, t.col, "expected directive or modifier name after '.'")
		}
		s.scanWord()
		// "::" joins sub-qualifiers: .L1::evict_last, .shared::cluster, .cta_group::1.
		for s.off+2 < len(s.src) && s.src[s.off] == ':' && s.src[s.off+1] == ':' && isIdentChar(s.src[s.off+2]) {
			s.off += 2
			s.scanWord()
		}
		t.kind = tDot
	case isDigit(c):
		t.kind = s.scanNumber(&t)
	case c == '"':
		s.off++
		for {
			if s.off >= len(s.src) || s.src[s.off] == '\n' {
				s.errorAt(start, t.line, t.col, "string literal not terminated")
			}
			ch := s.src[s.off]
			s.off++
			if ch == '"' {
				break
			}
			if ch == '\\' && s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
		}
		t.kind = tString
	default:
		switch c {
		case '{', '}', '[', ']', '(', ')', ',', ';', ':', '@', '!', '+', '-', '=', '<', '>', '|':
			s.off++
			t.kind = tPunct
		default:
			r, _ := utf8.DecodeRuneInString(s.src[s.off:])
			if r == utf8.RuneError || r < ' ' {
				s.errorAt(start, t.line, t.col, "illegal character %#U", rune(c))
			}
			s.errorAt(start, t.line, t.col, "illegal character %#U", r)
		}
	}
	t.text = s.src[start:s.off]
	return t
}

// scanNumber scans an integer or floating-point literal starting at a digit.
func (s *scanner) scanNumber(t *token) tokKind {
	start := s.off
	src := s.src
	if src[s.off] == '0' && s.off+1 < len(src) {
		switch src[s.off+1] {
		case 'f', 'F', 'd', 'D':
			n := 8
			if src[s.off+1] == 'd' || src[s.off+1] == 'D' {
				n = 16
			}
			s.off += 2
			d := s.off
			for s.off < len(src) && isHex(src[s.off]) {
				s.off++
			}
			if s.off-d != n || s.off < len(src) && isIdentChar(src[s.off]) {
				s.scanWord()
				s.errorAt(start, t.line, t.col, "malformed hex float literal %q (want %d hex digits)", src[start:s.off], n)
			}
			return tHexF
		case 'x', 'X':
			s.off += 2
			d := s.off
			for s.off < len(src) && isHex(src[s.off]) {
				s.off++
			}
			if s.off == d {
				s.errorAt(start, t.line, t.col, "malformed hex literal: no digits after %q", src[start:s.off])
			}
			return s.intSuffix(start, t)
		case 'b', 'B':
			s.off += 2
			d := s.off
			for s.off < len(src) && (src[s.off] == '0' || src[s.off] == '1') {
				s.off++
			}
			if s.off == d {
				s.errorAt(start, t.line, t.col, "malformed binary literal: no digits after %q", src[start:s.off])
			}
			return s.intSuffix(start, t)
		}
	}
	for s.off < len(src) && isDigit(src[s.off]) {
		s.off++
	}
	kind := tInt
	if s.off+1 < len(src) && src[s.off] == '.' && isDigit(src[s.off+1]) {
		kind = tFloat
		s.off++
		for s.off < len(src) && isDigit(src[s.off]) {
			s.off++
		}
	}
	if s.off < len(src) && (src[s.off] == 'e' || src[s.off] == 'E') {
		e := s.off + 1
		if e < len(src) && (src[e] == '+' || src[e] == '-') {
			e++
		}
		if e < len(src) && isDigit(src[e]) {
			kind = tFloat
			s.off = e
			for s.off < len(src) && isDigit(src[s.off]) {
				s.off++
			}
		}
	}
	if kind == tFloat {
		if s.off < len(src) && isIdentChar(src[s.off]) {
			s.scanWord()
			s.errorAt(start, t.line, t.col, "malformed number %q", src[start:s.off])
		}
		return tFloat
	}
	return s.intSuffix(start, t)
}

// intSuffix accepts the optional U suffix and rejects trailing letters ("12ab").
func (s *scanner) intSuffix(start int, t *token) tokKind {
	if s.off < len(s.src) && (s.src[s.off] == 'U' || s.src[s.off] == 'u') {
		s.off++
	}
	if s.off < len(s.src) && isIdentChar(s.src[s.off]) {
		s.scanWord()
		s.errorAt(start, t.line, t.col, "malformed number %q", s.src[start:s.off])
	}
	return tInt
}
