package ptx

import (
	"math"
	"strconv"
)

// The parser's numeric literals: integers in every base PTX allows, and
// floats, decimal or as exact 0f/0d bits.

// parseUint decodes an integer literal: decimal, 0x hex, 0b binary, 0-led
// octal, each with an optional U suffix.
func parseUint(s string) (uint64, string) {
	if n := len(s); n > 0 && (s[n-1] == 'U' || s[n-1] == 'u') {
		s = s[:n-1]
	}
	base := uint64(10)
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[1] == 'b' || s[1] == 'B'):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		}
		if d >= base {
			return 0, "invalid digit in integer literal"
		}
		if v > (math.MaxUint64-d)/base {
			return 0, "integer literal overflows 64 bits"
		}
		v = v*base + d
	}
	return v, ""
}

// intLit consumes an integer literal token.
func (p *parser) intLit(what string) uint64 {
	t := p.tok
	if t.kind != tInt {
		p.expected(what)
	}
	v, msg := parseUint(t.text)
	if msg != "" {
		p.errorAt(t, "%s: %s", msg, t.text)
	}
	p.next()
	return v
}

// smallInt consumes a non-negative integer that must fit comfortably in an
// int (sizes, alignments, counts).
func (p *parser) smallInt(what string) int {
	t := p.tok
	v := p.intLit(what)
	if v > math.MaxInt32 {
		p.errorAt(t, "%s out of range: %s", what, t.text)
	}
	return int(v)
}

// offset consumes "+N", "+-N" or "-N" after a base and returns the signed value.
func (p *parser) offset() int64 {
	neg := false
	if p.is("+") {
		p.next()
		if p.is("-") {
			neg = true
			p.next()
		}
	} else {
		p.expect("-", "")
		neg = true
	}
	t := p.tok
	v := p.intLit("integer offset")
	if neg {
		if v > 1<<63 {
			p.errorAt(t, "offset out of range: -%s", t.text)
		}
		return int64(-v)
	}
	if v > math.MaxInt64 {
		p.errorAt(t, "offset out of range: %s", t.text)
	}
	return int64(v)
}

// hexFloat decodes 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX keeping the exact bits.
func hexFloat(s string) (val float64, bits uint64, n int) {
	for _, c := range s[2:] {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			d = uint64(c-'A') + 10
		}
		bits = bits<<4 | d
	}
	if s[1] == 'f' || s[1] == 'F' {
		return float64(math.Float32frombits(uint32(bits))), bits, 32
	}
	return math.Float64frombits(bits), bits, 64
}

// floatLit decodes the current float token (decimal or hex) and negates it if neg.
func (p *parser) floatLit(neg bool) (val float64, bits uint64, n int) {
	t := p.tok
	if t.kind == tHexF {
		val, bits, n = hexFloat(t.text)
		if neg {
			// Negation of an IEEE value is a sign-bit flip; keep bits exact.
			val = -val
			bits ^= 1 << (n - 1)
		}
	} else {
		var err error
		val, err = strconv.ParseFloat(t.text, 64)
		if err != nil {
			p.errorAt(t, "float literal out of range: %s", t.text)
		}
		if neg {
			val = -val
		}
	}
	p.next()
	return val, bits, n
}
