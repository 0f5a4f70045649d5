package ptx

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// InitData is a variable's initial value, as its initializer lays it out.
type InitData struct {
	// Bytes are the variable's first bytes, little-endian, up to the end of
	// the last element the initializer reaches; the rest of the variable is
	// zero. Address elements hold zero here: see Addrs.
	Bytes []byte
	// Addrs are the elements that hold addresses, which only a loader knows.
	Addrs []InitAddr
}

// InitAddr is an element initialized with an address: sym, sym+off,
// generic(sym)+off, or one byte of one (0xFF00(sym)).
type InitAddr struct {
	Pos     Pos
	Offset  int // the element's byte offset in the variable
	Size    int // the element's width in bytes
	Sym     string
	Generic bool   // generic(sym): the generic address, else the offset in sym's state space
	Add     int64  // the +off
	Mask    uint64 // 0, or the one byte of the address the element holds (0xFF << 8k)
}

// Value is what the element holds when Sym's address (generic or in its
// state space, as Generic says) is addr.
func (a InitAddr) Value(addr uint64) uint64 {
	v := addr + uint64(a.Add)
	if a.Mask != 0 {
		v = v & a.Mask >> bits.TrailingZeros64(a.Mask)
	}
	return v
}

// Put stores Value(addr) into b, the variable's bytes.
func (a InitAddr) Put(b []byte, addr uint64) { putLE(b[a.Offset:a.Offset+a.Size], a.Value(addr)) }

// maxInitBytes bounds the bytes an initializer can make InitData allocate:
// a few elements can reach far into a huge array.
const maxInitBytes = 1 << 30

// An element may lie at most maxSparseness bytes of data per byte of
// initializer text before it, plus sparseSlack: a braced item starts the
// next sub-array, so "x[2][1073741000] = {{1},{1}}" would make 90 bytes of
// PTX allocate 1 GiB. Dense lists reach 8 bytes per 2 of text (.u64 "0,"),
// partly filled rows of x[64][64] 64 per 4.
const (
	maxSparseness = 64
	sparseSlack   = 64 << 10
)

// InitData evaluates v's initializer (PTX ISA "Initializers"); it is nil
// without one. Each scalar is converted to v's element type by IntBits or
// FloatBits. Braces follow the declaration's dimensions, outermost first,
// with vector lanes innermost: a braced list fills the next whole
// sub-array, and a short one leaves the rest of it zero, so
// x[3][2] = {{1}, {2, 3}} is {1, 0, 2, 3, 0, 0}. Scalars without braces fill
// elements in order ({1, 2, 3, 4} for x[2][2]).
//
// The ISA lists .f16 and .f16x2 among the types without initializers;
// hand-written PTX uses them anyway, and they convert as for an operand.
func (v *Var) InitData() (*InitData, error) {
	if v.Init == nil {
		return nil, nil
	}
	l, err := v.layout()
	if err != nil {
		return nil, err
	}
	d := &InitData{}
	w := v.Type.Size()
	err = l.walk(v.Init, func(in *Init, i int) error {
		if w == 0 {
			return nil
		}
		off := i * w
		if off > maxInitBytes-w {
			return fmt.Errorf("%s: variable %s: initialized data past %d bytes", in.Pos, v.Name, maxInitBytes)
		}
		if text := in.Pos.Offset - v.Init.Pos.Offset + 1; off+w > maxSparseness*text+sparseSlack {
			return fmt.Errorf("%s: variable %s: this element is at byte %d, more than %d times the %d bytes of initializer up to it: initializers this sparse are not laid out",
				in.Pos, v.Name, off, maxSparseness, text)
		}
		if n := off + w; n > len(d.Bytes) {
			d.Bytes = append(d.Bytes, make([]byte, n-len(d.Bytes))...)
		}
		var b uint64
		switch in.Kind {
		case InitInt:
			b = IntBits(in.Int, v.Type)
		case InitFloat:
			var ok bool
			if b, ok = FloatBits(in.Float, in.Bits, in.BitsLen, v.Type); !ok {
				return fmt.Errorf("%s: variable %s: a floating-point literal cannot initialize a .%s", in.Pos, v.Name, v.Type)
			}
		case InitSymbol:
			if m, z := in.Mask, bits.TrailingZeros64(in.Mask); m != 0 && (z%8 != 0 || m>>z != 0xFF) {
				return fmt.Errorf("%s: variable %s: mask %#x is not one byte (0xFF, 0xFF00, ..., 0xFF00000000000000)", in.Pos, v.Name, m)
			}
			d.Addrs = append(d.Addrs, InitAddr{Pos: in.Pos, Offset: off, Size: w, Sym: in.Sym,
				Generic: in.Generic, Add: in.Offset, Mask: in.Mask})
			return nil
		}
		putLE(d.Bytes[off:off+w], b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Elems is the number of elements (vector lanes times array elements). An
// unsized first dimension takes its extent from the initializer, as in
// "bar[] = {2, 3, 5}"; Elems is -1 when a dimension stays unsized, and when
// the count overflows an int.
func (v *Var) Elems() int {
	n := uint64(max(v.Vector, 1))
	for i, d := range v.Dims {
		if d < 0 {
			if i > 0 || v.Init == nil {
				return -1
			}
			l, err := v.layout()
			if err != nil {
				return -1
			}
			return l.stride[0]
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return -1
		}
		n = lo
	}
	return int(n)
}

// initShape is a variable's extents for laying out its initializer.
type initShape struct {
	v      *Var
	stride []int // stride[i] = elements in one item of dimension i; stride[len(dims)] = 1
}

// layout computes the strides, sizing an unsized first dimension from the
// initializer.
func (v *Var) layout() (*initShape, error) {
	dims := v.Dims
	if v.Vector > 0 {
		dims = append(dims[:len(dims):len(dims)], v.Vector)
	}
	l := &initShape{v: v, stride: make([]int, len(dims)+1)}
	l.stride[len(dims)] = 1
	for i := len(dims) - 1; i >= 0; i-- {
		d := dims[i]
		if d < 0 {
			if i > 0 || v.Init == nil {
				return nil, fmt.Errorf("%s: variable %s has no size", v.Pos, v.Name)
			}
			// Lay the initializer out in an unbounded first dimension to
			// see how many items it fills.
			l.stride[0] = math.MaxInt
			hi := 0
			if err := l.walk(v.Init, func(_ *Init, i int) error { hi = max(hi, i+1); return nil }); err != nil {
				return nil, err
			}
			if sub := l.stride[1]; sub > 0 {
				d = (hi + sub - 1) / sub
			} else {
				d = 0 // a zero dimension below: nothing fits
			}
		}
		hi, lo := bits.Mul64(uint64(d), uint64(l.stride[i+1]))
		if hi != 0 || lo > math.MaxInt {
			return nil, fmt.Errorf("%s: variable %s has too many elements", v.Pos, v.Name)
		}
		l.stride[i] = int(lo)
	}
	return l, nil
}

// extent is the number of elements an initializer at nesting level covers;
// braces nested deeper than the dimensions (a braced scalar) cover one.
func (l *initShape) extent(level int) int {
	if level < len(l.stride) {
		return l.stride[level]
	}
	return 1
}

// walk lays the initializer in out from element 0 on, calling put with
// each scalar and its element index. A brace list is parsed again from its
// text in one pass, nested lists included; put's *Init is only valid
// during the call.
func (l *initShape) walk(in *Init, put func(in *Init, i int) error) (err error) {
	if in.Kind != InitList {
		return put(in, 0)
	}
	if in.list == nil {
		return nil // an Init made by hand: no elements
	}
	defer func() {
		// Parse checked the text, so parsing it again cannot fail; if it
		// did, that is an error to report, not a crash.
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("variable %s: initializer: %v", l.v.Name, b.err)
		}
	}()
	return l.walkList(in.listParser(), 0, 0, put)
}

// walkList lays out the list whose first inner token p is at, at nesting
// level, from element base on, and leaves p after its '}'.
func (l *initShape) walkList(p *parser, level, base int, put func(in *Init, i int) error) error {
	size, sub := l.extent(level), l.extent(level+1)
	at := 0 // elements used, relative to base
	var e Init
	for !p.is("}") {
		isList := p.is("{")
		if isList && sub > 0 && at%sub != 0 {
			at += sub - at%sub // a braced item starts the next sub-array
		}
		if at >= size {
			return fmt.Errorf("%s: variable %s: too many initializers: %s holds %s", p.pos(p.tok), l.v.Name, l.what(level), plural(size, "element"))
		}
		if isList {
			p.next()
			if err := l.walkList(p, level+1, base+at, put); err != nil {
				return err
			}
			at += sub
		} else {
			e = Init{}
			p.initInto(&e, false)
			if err := put(&e, base+at); err != nil {
				return err
			}
			at++
		}
		if p.is(",") {
			p.next()
		}
	}
	p.next()
	return nil
}

// what names what a list at level initializes.
func (l *initShape) what(level int) string {
	switch {
	case level == 0:
		return "the variable"
	case level < len(l.stride)-1:
		return "a sub-array"
	}
	return "a braced scalar"
}

// putLE stores v little-endian in b, zero-extended past 8 bytes.
func putLE(b []byte, v uint64) {
	var tmp [8]byte
	binary.LittleEndian.PutUint64(tmp[:], v)
	clear(b[copy(b, tmp[:]):])
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
