package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// builtin runs a call to a function the executor provides (vprintf,
// __assertfail, cudaGraphSetConditional) for each lane of m, in lane order.
func (c *cta) builtin(w *warp, in *inst, m uint32) bool {
	fi := c.p.funcs[in.aux2]
	fb := lanes(w.r, fbSlot)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm) & 31
		frame := fb[l] + uint64(in.imm)
		arg := func(i int, size uint64) (uint64, bool) {
			if i >= len(fi.parOff) {
				return 0, true
			}
			p := c.ptr(w, spLocal, frame+uint64(fi.parOff[i]), size, false, l)
			if p == nil {
				return 0, false
			}
			return load(p, uint16(size), false), true
		}
		switch in.aux {
		case biVprintf:
			fmtp, ok1 := arg(0, 8)
			argp, ok2 := arg(1, 8)
			if !ok1 || !ok2 {
				return false
			}
			out, n, ok := c.format(w, l, fmtp, argp)
			if !ok {
				return false
			}
			c.l.Host.Print(out)
			if len(fi.retOff) > 0 {
				if p := c.ptr(w, spLocal, frame+uint64(fi.retOff[0]), 4, true, l); p != nil {
					store(p, 4, uint64(n), false)
				}
			}
		case biAssertfail:
			msgp, _ := arg(0, 8)
			filep, _ := arg(1, 8)
			line, _ := arg(2, 4)
			funcp, _ := arg(3, 8)
			msg, file, fn := c.cstring(w, l, msgp, 4096), c.cstring(w, l, filep, 4096), c.cstring(w, l, funcp, 4096)
			c.fault = nil
			t := w.id*32 + l
			b := c.l.Block
			tx, ty, tz := t%int(b.X), t/int(b.X)%int(b.Y), t/int(b.X*b.Y)
			text := sprintf("%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.\n",
				file, uint32(line), fn, c.ctaid[0], c.ctaid[1], c.ctaid[2], tx, ty, tz, msg)
			c.l.Host.Print(text)
			c.fault = &fault{kind: fAssert, warp: w.id, lane: l, pc: c.pc, msg: sprintf("device-side assertion `%s` failed at %s:%d in %s", msg, file, uint32(line), fn)}
			return false
		case biGraphSetConditional:
			h, ok1 := arg(0, 8)
			v, ok2 := arg(1, 4)
			if !ok1 || !ok2 {
				return false
			}
			msg := sprintf("cudaGraphSetConditional(%#x, %d) from a kernel that is not running in a graph", h, uint32(v))
			if c.l.SetConditional != nil {
				msg = c.l.SetConditional(h, uint32(v))
			}
			if msg != "" {
				c.fault = &fault{kind: fIllegalAddress, warp: w.id, lane: l, pc: c.pc, addr: h, size: 4, space: spGlobal, write: true, msg: msg}
				return false
			}
		default:
			if !c.runtimeCall(w, fi, int(in.aux), l, frame) {
				return false
			}
		}
	}
	return true
}

// cstring reads a NUL-terminated string at a generic address ("(null)"
// for 0; what could be read if the string runs into unmapped memory).
func (c *cta) cstring(w *warp, l int, addr uint64, limit int) string {
	if addr == 0 {
		return "(null)"
	}
	var sb strings.Builder
	saved := c.fault
	var b [1]byte
	for i := 0; i < limit; i++ {
		if !c.readMem(w, addr+uint64(i), b[:], l) {
			c.fault = saved
			break
		}
		if b[0] == 0 {
			break
		}
		sb.WriteByte(b[0])
	}
	return sb.String()
}

// format expands a device printf: the format string at fmtp and the
// argument buffer at argp, packed with each argument at its natural
// alignment (4-byte int/char, 8-byte long long, double, pointers).
func (c *cta) format(w *warp, l int, fmtp, argp uint64) (string, int, bool) {
	f := c.cstring(w, l, fmtp, 1<<16)
	var out strings.Builder
	off := uint64(0)
	nargs := 0
	next := func(size uint64) (uint64, bool) {
		off = (off + size - 1) / size * size
		var buf [8]byte
		b := buf[:size]
		if !c.readMem(w, argp+off, b, l) {
			return 0, false
		}
		off += size
		nargs++
		if size == 4 {
			return uint64(binary.LittleEndian.Uint32(b)), true
		}
		return binary.LittleEndian.Uint64(b), true
	}
	for i := 0; i < len(f); i++ {
		ch := f[i]
		if ch != '%' {
			out.WriteByte(ch)
			continue
		}
		j := i + 1
		if j < len(f) && f[j] == '%' {
			out.WriteByte('%')
			i = j
			continue
		}
		// flags, width, precision, length, conversion
		var flags, width, prec string
		for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
			flags += string(f[j])
			j++
		}
		if j < len(f) && f[j] == '*' {
			v, ok := next(4)
			if !ok {
				return "", 0, false
			}
			width = strconv.Itoa(int(int32(v)))
			j++
		}
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			width += string(f[j])
			j++
		}
		hasPrec := false
		if j < len(f) && f[j] == '.' {
			hasPrec = true
			j++
			if j < len(f) && f[j] == '*' {
				v, ok := next(4)
				if !ok {
					return "", 0, false
				}
				prec = strconv.Itoa(int(int32(v)))
				j++
			}
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				prec += string(f[j])
				j++
			}
			if prec == "" {
				prec = "0"
			}
		}
		length := ""
		for j < len(f) && strings.IndexByte("hljztL", f[j]) >= 0 {
			length += string(f[j])
			j++
		}
		if j >= len(f) {
			out.WriteString(f[i:])
			break
		}
		conv := f[j]
		i = j
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		wide := strings.ContainsAny(length, "ljzt")
		size := uint64(4)
		if wide {
			size = 8
		}
		switch conv {
		case 'd', 'i':
			v, ok := next(size)
			if !ok {
				return "", 0, false
			}
			var x int64
			switch {
			case wide:
				x = int64(v)
			case length == "hh":
				x = int64(int8(v))
			case length == "h":
				x = int64(int16(v))
			default:
				x = int64(int32(v))
			}
			out.WriteString(cInt(spec+"d", x, hasPrec, prec))
		case 'u', 'x', 'X', 'o':
			v, ok := next(size)
			if !ok {
				return "", 0, false
			}
			switch {
			case wide:
			case length == "hh":
				v &= 0xff
			case length == "h":
				v &= 0xffff
			default:
				v &= 0xffffffff
			}
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			out.WriteString(cUint(spec+verb, v, hasPrec, prec))
		case 'c':
			v, ok := next(4)
			if !ok {
				return "", 0, false
			}
			out.WriteString(fmt.Sprintf("%"+flags+width+"c", rune(byte(v))))
		case 's':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			s := c.cstring(w, l, v, 1<<16)
			out.WriteString(fmt.Sprintf(spec+"s", s))
		case 'p':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			out.WriteString(fmt.Sprintf("%"+flags+width+"s", "0x"+strconv.FormatUint(v, 16)))
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			out.WriteString(cFloat(flags, width, prec, hasPrec, conv, math.Float64frombits(v)))
		case 'n':
		default:
			out.WriteString(f[i-(j-i) : j+1])
		}
	}
	return out.String(), nargs, true
}

// cInt and cUint format integers with C's precision rule (minimum digits;
// precision 0 with value 0 prints nothing), which Go's %d lacks.
func cInt(spec string, x int64, hasPrec bool, prec string) string {
	if !hasPrec {
		return fmt.Sprintf(spec, x)
	}
	p, _ := strconv.Atoi(prec)
	digits := strconv.FormatUint(uint64(gpumath.AbsI(x)), 10)
	if x == math.MinInt64 {
		digits = "9223372036854775808"
	}
	if p == 0 && x == 0 {
		digits = ""
	}
	for len(digits) < p {
		digits = "0" + digits
	}
	sign := ""
	switch {
	case x < 0:
		sign = "-"
	case strings.Contains(spec, "+"):
		sign = "+"
	case strings.Contains(spec, " "):
		sign = " "
	}
	return pad(spec, sign+digits)
}

func cUint(spec string, x uint64, hasPrec bool, prec string) string {
	verb := spec[len(spec)-1]
	if !hasPrec {
		if verb == 'o' && strings.Contains(spec, "#") && x == 0 {
			spec = strings.Replace(spec, "#", "", 1)
		}
		if (verb == 'x' || verb == 'X') && x == 0 {
			spec = strings.Replace(spec, "#", "", 1)
		}
		return fmt.Sprintf(spec, x)
	}
	p, _ := strconv.Atoi(prec)
	base := 10
	switch verb {
	case 'x', 'X':
		base = 16
	case 'o':
		base = 8
	}
	digits := strconv.FormatUint(x, base)
	if verb == 'X' {
		digits = strings.ToUpper(digits)
	}
	if p == 0 && x == 0 {
		digits = ""
	}
	for len(digits) < p {
		digits = "0" + digits
	}
	if strings.Contains(spec, "#") && x != 0 {
		switch verb {
		case 'x':
			digits = "0x" + digits
		case 'X':
			digits = "0X" + digits
		case 'o':
			if digits[0] != '0' {
				digits = "0" + digits
			}
		}
	}
	return pad(spec, digits)
}

// pad applies a spec's width and '-' flag to s (the '0' flag is ignored
// with a precision, as in C).
func pad(spec, s string) string {
	w := 0
	i := 1
	for i < len(spec) && strings.IndexByte("-+ #0", spec[i]) >= 0 {
		i++
	}
	j := i
	for j < len(spec) && spec[j] >= '0' && spec[j] <= '9' {
		j++
	}
	w, _ = strconv.Atoi(spec[i:j])
	if len(s) >= w {
		return s
	}
	if strings.Contains(spec[:i], "-") {
		return s + strings.Repeat(" ", w-len(s))
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func cFloat(flags, width, prec string, hasPrec bool, conv byte, x float64) string {
	if !hasPrec {
		prec = "6"
	}
	upper := conv >= 'A' && conv <= 'Z'
	lc := conv | 0x20
	var s string
	switch {
	case math.IsInf(x, 0) || x != x:
		s = "inf"
		if x != x {
			s = "nan"
		}
		if math.Signbit(x) {
			s = "-" + s
		} else if strings.Contains(flags, "+") {
			s = "+" + s
		} else if strings.Contains(flags, " ") {
			s = " " + s
		}
		flags = strings.ReplaceAll(flags, "0", "")
		if upper {
			s = strings.ToUpper(s)
		}
		return pad("%"+flags+width+"s", s)
	case lc == 'a':
		p := -1
		if hasPrec {
			p, _ = strconv.Atoi(prec)
		}
		s = strconv.FormatFloat(x, 'x', p, 64)
		// C prints the exponent without leading zeros: 0x1.8p+0.
		if k := strings.LastIndexAny(s, "+-"); k > 0 && s[k-1] == 'p' {
			e := strings.TrimLeft(s[k+1:], "0")
			if e == "" {
				e = "0"
			}
			s = s[:k+1] + e
		}
		if !math.Signbit(x) {
			if strings.Contains(flags, "+") {
				s = "+" + s
			} else if strings.Contains(flags, " ") {
				s = " " + s
			}
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return pad("%"+strings.ReplaceAll(flags, "0", "")+width+"s", s)
	}
	spec := "%" + flags + width + "." + prec + string(lc)
	s = fmt.Sprintf(spec, x)
	if lc == 'g' && prec == "0" {
		s = fmt.Sprintf("%"+flags+width+".1g", x)
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s
}
