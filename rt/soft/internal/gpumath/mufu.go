package gpumath

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// The .approx instructions run on the GPU's multi-function unit (MUFU), whose
// results are not correctly rounded. soft reproduces the H100's bits: each
// MUFU function is reduced to a fundamental domain whose hardware results
// were recorded exhaustively (testdata/mufu/*.zst, made by internal/mufugen from the
// runs in rt/soft/internal/exec/testdata/mufu/NOTES.md), and everything outside that domain
// follows from it by rules checked against the GPU for all 2^32 inputs:
//
//	MUFU.RCP   T[1,2) scaled by 2^-e; subnormal inputs and outputs flush
//	MUFU.RSQ   T[1,4) scaled by 2^-e/2 (e even)
//	MUFU.SQRT  T[1,4) scaled by 2^e/2
//	MUFU.EX2   |x| truncated to 23 fraction bits, split into 2^I·T[frac];
//	           a negative fraction is taken as its one's complement
//	MUFU.LG2   e + L(m) truncated towards zero, L from T[0.5,2)
//	MUFU.SIN   |y| truncated to 25 fraction bits; T over half a period,
//	MUFU.COS   S(f+1/2) = -S(f), cos(f) = S(f+1/4)
//	MUFU.TANH  odd; x below 2^-8 is returned, 8 and above give 1; between,
//	           T per binade over the top 17 to 21 mantissa bits
//
// The PTX forms without .ftz are the SASS sequences ptxas wraps around the
// MUFU op (scaling subnormals, halving for ex2 below -126); sin and cos
// multiply by 1/(2π) rounding towards zero first.

// The tables, one embedded string each (read in place, never copied).
var (
	//go:embed mufu/rcp.tab.zst
	rcpTab string
	//go:embed mufu/rsq.tab.zst
	rsqTab string
	//go:embed mufu/sqrt.tab.zst
	sqrtTab string
	//go:embed mufu/ex2.tab.zst
	ex2Tab string
	//go:embed mufu/lg2.tab.zst
	lg2Tab string
	//go:embed mufu/sin.tab.zst
	sinTab string
	//go:embed mufu/tanh.tab.zst
	tanhTab string
	//go:embed mufu/half.tab.zst
	halfTab string
)

// A mufuTable holds the recorded results of one segment of a function as
// linear interpolation between anchors every 64 entries plus a w-bit
// correction per entry (w = 2, 4 or 8, whichever takes least memory); the
// entries that need more are kept in a sorted exception list. That is a
// tenth of the memory of the plain []uint32 for the smooth functions.
type mufuTable struct {
	n      int
	w      uint // correction bits per entry
	anchor []uint32
	code   []byte
	excIdx []uint32
	excVal []uint32
}

const mufuStride = 64

// newMufuTable compacts the n recorded results v (for TestMufuTables
// -update, which writes mufu/*.tab.zst). go:norace spares -race runs
// instrumenting its ~10^8 memory accesses, which could find nothing.
//
//go:norace
func newMufuTable(v []uint32) *mufuTable {
	n := len(v)
	nb := (n + mufuStride - 1) / mufuStride
	t := &mufuTable{n: n, anchor: make([]uint32, nb+1)}
	for j := 0; j < nb; j++ {
		t.anchor[j] = v[j*mufuStride]
	}
	t.anchor[nb] = v[n-1]
	var hist [256]int // residuals -127..127 at hist[r+128]; hist[0]: the rest
	for i, x := range v {
		r := int64(x) - t.pred(uint32(i))
		if r < -127 || r > 127 {
			r = -128
		}
		hist[r+128]++
	}
	best := -1
	for _, w := range []uint{2, 4, 8} {
		bias := 1<<(w-1) - 1
		exc := n
		for r := -bias; r <= bias; r++ {
			exc -= hist[r+128]
		}
		if cost := n*int(w)/8 + 8*exc; best < 0 || cost < best {
			best, t.w = cost, w
		}
	}
	t.code = make([]byte, (n*int(t.w)+7)/8)
	bias := int64(1)<<(t.w-1) - 1
	for i, x := range v {
		r := int64(x) - t.pred(uint32(i))
		c := uint64(1)<<t.w - 1
		if r >= -bias && r <= bias {
			c = uint64(r + bias)
		} else {
			t.excIdx = append(t.excIdx, uint32(i))
			t.excVal = append(t.excVal, x)
		}
		b := uint(i) * t.w
		t.code[b/8] |= byte(c << (b % 8))
	}
	return t
}

func (t *mufuTable) pred(i uint32) int64 {
	a, b := int64(t.anchor[i/mufuStride]), int64(t.anchor[i/mufuStride+1])
	return a + ((b-a)*int64(i%mufuStride)*2+mufuStride)>>7 // round((b-a)·j/64)
}

// exception is entry i, one whose correction did not fit in w bits.
func (t *mufuTable) exception(i uint32) uint32 {
	k := sort.Search(len(t.excIdx), func(k int) bool { return t.excIdx[k] >= i })
	return t.excVal[k]
}

// marshal is the MUF2 form of one segment, which loadSegment reads:
//
//	"MUF2", n, w, len(anchor), len(exc) (uint32 LE), anchor (uint32 LE),
//	code, then per exception its index's delta from the last (uint32 LE),
//	then per exception its value's residual against pred (int32 LE)
func (t *mufuTable) marshal() []byte {
	le := binary.LittleEndian
	b := []byte("MUF2")
	for _, v := range []int{t.n, int(t.w), len(t.anchor), len(t.excIdx)} {
		b = le.AppendUint32(b, uint32(v))
	}
	for _, v := range t.anchor {
		b = le.AppendUint32(b, v)
	}
	b = append(b, t.code...)
	// Exceptions as index deltas and residuals against the interpolation:
	// small numbers, which compress to a fraction of the raw ones.
	prev := uint32(0)
	for _, v := range t.excIdx {
		b = le.AppendUint32(b, v-prev)
		prev = v
	}
	for i, v := range t.excVal {
		b = le.AppendUint32(b, uint32(int64(v)-t.pred(t.excIdx[i])))
	}
	return b
}

func unmarshalMufuTable(b []byte) (*mufuTable, error) {
	le := binary.LittleEndian
	if len(b) < 20 || !bytes.Equal(b[:4], []byte("MUF2")) {
		return nil, fmt.Errorf("bad header")
	}
	n, w := int(le.Uint32(b[4:])), uint(le.Uint32(b[8:]))
	na, ne := int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	if n == 0 || n > mufuSegment || (w != 2 && w != 4 && w != 8) || na != (n+mufuStride-1)/mufuStride+1 || ne > n {
		return nil, fmt.Errorf("bad sizes n=%d w=%d anchors=%d exceptions=%d", n, w, na, ne)
	}
	nc := (n*int(w) + 7) / 8
	if len(b) != 20+4*na+nc+8*ne {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), 20+4*na+nc+8*ne)
	}
	b = b[20:]
	t := &mufuTable{n: n, w: w, anchor: make([]uint32, na), excIdx: make([]uint32, ne), excVal: make([]uint32, ne)}
	for i := range t.anchor {
		t.anchor[i] = le.Uint32(b[4*i:])
	}
	b = b[4*na:]
	t.code, b = b[:nc:nc], b[nc:]
	prev := uint32(0)
	for i := range t.excIdx {
		prev += le.Uint32(b[4*i:])
		if prev >= uint32(n) || (i > 0 && prev <= t.excIdx[i-1]) {
			return nil, fmt.Errorf("exception %d at %d: out of order", i, prev)
		}
		t.excIdx[i] = prev
		t.excVal[i] = uint32(t.pred(prev) + int64(int32(le.Uint32(b[4*(ne+i):]))))
	}
	return t, nil
}

// A function's table is cut into segments of mufuSegment entries, each
// compacted and compressed on its own, and a segment is decoded the first
// time an input needs it: a first use costs one segment (a fraction of a
// millisecond to a few), not the whole table, and a kernel touching a
// narrow input range never pays for the rest.
const (
	mufuSegShift = 18
	mufuSegment  = 1 << mufuSegShift
	mufuMaxSegs  = 1 << (24 - mufuSegShift) // the largest tables have 2^24 entries
)

// A lazyTable is one function's table, mufu/name.tab.zst:
//
//	"MUF3", n, len(meta), segments (uint32 LE), then per segment and one
//	past the last the offset of its zstd frame from the first's (uint32
//	LE), meta, the frames (each a segment's MUF2 form)
type lazyTable struct {
	name string
	z    string // the embedded file

	once   sync.Once
	n      int
	meta   []byte
	frames string
	offs   []uint32

	mu  sync.Mutex // serialises decoding
	seg [mufuMaxSegs]atomic.Pointer[mufuTable]
}

// at is the table's entry i (< n), decoding its segment on first use.
func (l *lazyTable) at(i uint32) uint32 {
	t := l.seg[i>>mufuSegShift].Load()
	if t == nil {
		t = l.loadSegment(int(i >> mufuSegShift))
	}
	i &= mufuSegment - 1
	b := uint(i) * t.w
	c := int64(t.code[b/8]>>(b%8)) & (1<<t.w - 1)
	if c != 1<<t.w-1 {
		return uint32(t.pred(i) + c - (1<<(t.w-1) - 1))
	}
	return t.exception(i)
}

// header is the table's meta (for tanh, its classes).
func (l *lazyTable) header() []byte {
	l.once.Do(l.parse)
	return l.meta
}

func (l *lazyTable) parse() {
	if err := l.parseErr(); err != nil {
		panic(fmt.Sprintf("soft: mufu/%s.tab.zst: %v", l.name, err))
	}
}

func (l *lazyTable) parseErr() error {
	z := l.z
	if len(z) < 16 || z[:4] != "MUF3" {
		return fmt.Errorf("bad header")
	}
	u32 := func(o int) uint32 { return binary.LittleEndian.Uint32([]byte(z[o : o+4])) }
	n, ml, ns := int(u32(4)), int(u32(8)), int(u32(12))
	if n == 0 || n > mufuMaxSegs*mufuSegment || ns != (n+mufuSegment-1)/mufuSegment || ml > 1<<16 || len(z) < 16+4*(ns+1)+ml {
		return fmt.Errorf("bad sizes n=%d segments=%d meta=%d", n, ns, ml)
	}
	l.offs = make([]uint32, ns+1)
	for k := range l.offs {
		l.offs[k] = u32(16 + 4*k)
		if k > 0 && l.offs[k] < l.offs[k-1] {
			return fmt.Errorf("segment %d: offsets out of order", k)
		}
	}
	o := 16 + 4*(ns+1)
	l.n, l.meta, l.frames = n, []byte(z[o:o+ml]), z[o+ml:]
	if int(l.offs[ns]) != len(l.frames) {
		return fmt.Errorf("%d bytes of frames, want %d", len(l.frames), l.offs[ns])
	}
	return nil
}

// mufuZstd is the one decoder every segment goes through (DecodeAll is
// safe for concurrent use).
var mufuZstd = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return d
})

func (l *lazyTable) loadSegment(k int) *mufuTable {
	l.once.Do(l.parse)
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.seg[k].Load(); s != nil {
		return s
	}
	if k >= len(l.offs)-1 {
		panic(fmt.Sprintf("soft: mufu/%s: entry %d past the table's %d", l.name, k*mufuSegment, l.n))
	}
	b, err := mufuZstd().DecodeAll([]byte(l.frames[l.offs[k]:l.offs[k+1]]), nil)
	var s *mufuTable
	if err == nil {
		s, err = unmarshalMufuTable(b)
	}
	if err == nil && s.n != min(mufuSegment, l.n-k*mufuSegment) {
		err = fmt.Errorf("%d entries, want %d", s.n, min(mufuSegment, l.n-k*mufuSegment))
	}
	if err != nil {
		panic(fmt.Sprintf("soft: mufu/%s.tab.zst: segment %d: %v", l.name, k, err))
	}
	l.seg[k].Store(s)
	return s
}

// marshalMufu is the MUF3 form of the recorded results v of a function,
// with meta, its segments compressed by e.
func marshalMufu(v []uint32, meta []byte, e *zstd.Encoder) []byte {
	le := binary.LittleEndian
	var frames []byte
	offs := []uint32{0}
	for a := 0; a < len(v); a += mufuSegment {
		frames = e.EncodeAll(newMufuTable(v[a:min(len(v), a+mufuSegment)]).marshal(), frames)
		offs = append(offs, uint32(len(frames)))
	}
	b := []byte("MUF3")
	for _, x := range []int{len(v), len(meta), len(offs) - 1} {
		b = le.AppendUint32(b, uint32(x))
	}
	for _, o := range offs {
		b = le.AppendUint32(b, o)
	}
	b = append(b, meta...)
	return append(b, frames...)
}

// decodeMufu decodes a recording, testdata/mufu/name.zst: "MUF1", entry
// count, meta length, meta, then the entries as a byte stream of zigzag
// residuals against the linear extrapolation a[i-1] + ⌊(a[i-1]-a[i-65])/64⌋
// (255 escapes a raw int64).
//
//go:norace
func decodeMufu(b []byte) (v []uint32, meta []byte, err error) {
	if len(b) < 12 || !bytes.Equal(b[:4], []byte("MUF1")) {
		return nil, nil, fmt.Errorf("bad header")
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	ml := int(binary.LittleEndian.Uint32(b[8:]))
	if n == 0 || n > 1<<26 || ml > len(b)-12 {
		return nil, nil, fmt.Errorf("bad sizes n=%d meta=%d", n, ml)
	}
	meta, b = b[12:12+ml], b[12+ml:]
	v = make([]uint32, 0, n)
	const L = 64
	for len(b) > 0 && len(v) < n {
		var r int64
		if b[0] == 255 {
			if len(b) < 9 {
				return nil, nil, fmt.Errorf("truncated escape at entry %d", len(v))
			}
			r = int64(binary.LittleEndian.Uint64(b[1:9]))
			b = b[9:]
		} else {
			r = int64(b[0]>>1) ^ -int64(b[0]&1)
			b = b[1:]
		}
		i := len(v)
		var p int64
		if i >= 1 {
			p = int64(v[i-1])
		}
		if i >= L+1 {
			p += floorDiv64(int64(v[i-1])-int64(v[i-1-L]), L)
		}
		v = append(v, uint32(p+r))
	}
	if len(v) != n || len(b) != 0 {
		return nil, nil, fmt.Errorf("%d entries, %d bytes left; want %d entries", len(v), len(b), n)
	}
	return v, meta, nil
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

var (
	tabRcp  = &lazyTable{name: "rcp", z: rcpTab}   // MUFU.RCP of 1+i·2^-23
	tabRsq  = &lazyTable{name: "rsq", z: rsqTab}   // MUFU.RSQ of [1,4): float bits 0x3f800000+i
	tabSqrt = &lazyTable{name: "sqrt", z: sqrtTab} // MUFU.SQRT of [1,4)
	tabEx2  = &lazyTable{name: "ex2", z: ex2Tab}   // MUFU.EX2 of i·2^-23
	tabLg2  = &lazyTable{name: "lg2", z: lg2Tab}   // MUFU.LG2 of [0.5,2): float bits 0x3f000000+i
	tabSin  = &lazyTable{name: "sin", z: sinTab}   // MUFU.SIN of i·2^-25, i < 2^24
	tabTanh = &lazyTable{name: "tanh", z: tanhTab} // MUFU.TANH per binade; meta: first class, mantissa bits per class
	tabHalf = &lazyTable{name: "half", z: halfTab} // ex2.f16, ex2.bf16, tanh.f16, tanh.bf16: 65536 results each
)

const (
	minNormal32 = 0x00800000
	inf32       = 0x7f800000
	qnan32      = 0x7fffffff
)

// MufuRcp is MUFU.RCP (= rcp.approx.ftz.f32) on float32 bits.
func MufuRcp(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	switch {
	case a > inf32:
		return qnan32
	case a == inf32:
		return s
	case a < minNormal32:
		return s | inf32
	}
	e := int(a>>23) - 127
	t := tabRcp.at(a & 0x7fffff)
	if eb := int(t>>23) - e; eb > 0 {
		return s | uint32(int64(t)-int64(e)<<23)
	}
	// Below the normal range: rounded, then flushed unless it rounded up to
	// the smallest normal.
	r := math.Float32bits(float32(math.Ldexp(float64(math.Float32frombits(t)), -e)))
	if r < minNormal32 {
		r = 0
	}
	return s | r
}

// mufuRsq is MUFU.RSQ (= rsqrt.approx.ftz.f32).
func mufuRsq(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	switch {
	case a > inf32:
		return qnan32
	case a == inf32:
		if s != 0 {
			return qnan32
		}
		return 0
	case a < minNormal32:
		return s | inf32
	case s != 0:
		return qnan32
	}
	e := int(a>>23) - 127
	par := e & 1
	t := tabRsq.at(uint32(par)<<23 | a&0x7fffff)
	return uint32(int64(t) - int64((e-par)/2)<<23)
}

// mufuSqrt is MUFU.SQRT (= sqrt.approx.ftz.f32).
func mufuSqrt(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	switch {
	case a > inf32:
		return qnan32
	case a == inf32:
		if s != 0 {
			return qnan32
		}
		return inf32
	case a < minNormal32:
		return s
	case s != 0:
		return qnan32
	}
	e := int(a>>23) - 127
	par := e & 1
	t := tabSqrt.at(uint32(par)<<23 | a&0x7fffff)
	return uint32(int64(t) + int64((e-par)/2)<<23)
}

// mufuEx2 is MUFU.EX2 (= ex2.approx.ftz.f32).
func mufuEx2(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	switch {
	case a > inf32:
		return qnan32
	case a < minNormal32:
		a = 0
	case a >= 0x43800000: // |x| ≥ 256 (and ±inf)
		if s != 0 {
			return 0
		}
		return inf32
	}
	// K = |x| in fixed point with 23 fraction bits, truncated.
	var K int64
	if a != 0 {
		m, e := int64(a&0x7fffff|0x800000), int(a>>23)-127
		if e >= 0 {
			K = m << e
		} else if e > -24 {
			K = m >> -e
		}
	}
	if s != 0 {
		if K&0x7fffff != 0 {
			K = -K - 1 // the hardware negates the fraction in one's complement
		} else {
			K = -K
		}
	}
	I := K >> 23
	t := tabEx2.at(uint32(K & 0x7fffff))
	switch eb := int64(t>>23) + I; {
	case eb >= 255:
		return inf32
	case eb <= 0:
		return 0
	}
	return uint32(int64(t) + I<<23)
}

// mufuLg2 is MUFU.LG2 (= lg2.approx.ftz.f32). The hardware's log2 of the
// significand has more bits than one output shows; truncating e + L(m)
// towards zero equals truncating e + T(m) for e ≥ 0 and e+1 + T(m/2) for
// e < 0, since truncations compose and T itself is truncated.
func mufuLg2(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	switch {
	case a > inf32:
		return qnan32
	case a < minNormal32:
		return 0xff800000
	case s != 0:
		return qnan32
	case a == inf32:
		return inf32
	}
	e := int(a>>23) - 127
	var v float64
	if e >= 0 {
		v = float64(e) + float64(math.Float32frombits(tabLg2.at(1<<23|a&0x7fffff)))
	} else {
		v = float64(e+1) + float64(math.Float32frombits(tabLg2.at(a&0x7fffff)))
	}
	return f32rz(v)
}

// f32rz rounds v towards zero to float32 bits.
func f32rz(v float64) uint32 {
	f := float32(v)
	if math.Abs(float64(f)) > math.Abs(v) {
		f = math.Nextafter32(f, 0)
	}
	return math.Float32bits(f)
}

// MufuSinCos is MUFU.SIN (cos false) or MUFU.COS of y, in turns.
func MufuSinCos(y uint32, cos bool) uint32 {
	s, a := y&0x80000000, y&0x7fffffff
	if a >= inf32 {
		return qnan32
	}
	// K = frac(|y|) in fixed point with 25 bits, truncated.
	var K uint64
	if a >= minNormal32 {
		m, sh := uint64(a&0x7fffff|0x800000), int(a>>23)-125 // |y|·2^25 = m·2^sh
		if sh >= 0 {
			if sh < 25 {
				K = m << sh
			}
		} else if sh > -24 {
			K = m >> -sh
		}
		K &= 1<<25 - 1
	}
	if cos {
		K = (K + 1<<23) & (1<<25 - 1)
	}
	r := tabSin.at(uint32(K&(1<<24-1))) ^ uint32(K>>24)<<31
	if !cos {
		r ^= s
	}
	return r
}

// mufuTanh is MUFU.TANH (= tanh.approx.f32).
func mufuTanh(x uint32) uint32 {
	s, a := x&0x80000000, x&0x7fffffff
	if a > inf32 {
		return qnan32
	}
	meta := tabTanh.header()
	lo := uint32(meta[0])
	c := a >> 23
	switch {
	case c < lo:
		return x
	case c >= lo+uint32(len(meta)-1):
		return s | 0x3f800000
	}
	off := uint32(0)
	for k := lo; k < c; k++ {
		off += 1 << meta[1+k-lo]
	}
	k := uint32(meta[1+c-lo])
	return s | tabTanh.at(off+(a&0x7fffff)>>(23-k))
}

// Half-precision forms: MUFU.EX2.F16 and friends, recorded for all inputs.
const (
	HalfEx2F16 = iota << 16
	HalfEx2BF16
	HalfTanhF16
	HalfTanhBF16
)

func MufuHalf(which, h uint64) uint64 { return uint64(tabHalf.at(uint32(which | h&0xffff))) }

// The PTX .approx forms. The .ftz ones are the MUFU op itself; the others
// are ptxas's SASS around it (|x| < 2^-126 is FSETP.GEU's unordered
// complement, so NaN takes the unscaled path).

func F32B(x float32) uint32 { return math.Float32bits(x) }
func B32F(x uint32) float32 { return math.Float32frombits(x) }

func Tiny32(x float32) bool { return math.Abs(float64(x)) < 0x1p-126 }

func RcpApproxFtz(x float32) float32 { return B32F(MufuRcp(F32B(x))) }

// RcpApprox: s = 2^24 for subnormal x, 1/4 for |x| > 2^126; s·rcp(x·s).
func RcpApprox(x float32) float32 {
	s := float32(1)
	if Tiny32(x) {
		s = 0x1p24
	}
	if math.Abs(float64(x)) > 0x1p126 {
		s = 0.25
	}
	return s * B32F(MufuRcp(F32B(x*s)))
}

func RsqrtApproxFtz(x float32) float32 { return B32F(mufuRsq(F32B(x))) }

func RsqrtApprox(x float32) float32 {
	if Tiny32(x) {
		return B32F(mufuRsq(F32B(x*0x1p24))) * 0x1p12
	}
	return B32F(mufuRsq(F32B(x)))
}

func SqrtApproxFtz(x float32) float32 { return B32F(mufuSqrt(F32B(x))) }

func SqrtApprox(x float32) float32 {
	if Tiny32(x) {
		return B32F(mufuSqrt(F32B(x*0x1p24))) * 0x1p-12
	}
	return B32F(mufuSqrt(F32B(x)))
}

func Ex2ApproxFtz(x float32) float32 { return B32F(mufuEx2(F32B(x))) }

// Ex2Approx: below -126 the result would be subnormal, so ptxas squares
// ex2(x/2).
func Ex2Approx(x float32) float32 {
	if !(x >= -126) && x == x {
		r := B32F(mufuEx2(F32B(x * 0.5)))
		return r * r
	}
	return B32F(mufuEx2(F32B(x)))
}

func Lg2ApproxFtz(x float32) float32 { return B32F(mufuLg2(F32B(x))) }

func Lg2Approx(x float32) float32 {
	if Tiny32(x) {
		return B32F(mufuLg2(F32B(x*0x1p24))) - 24
	}
	return B32F(mufuLg2(F32B(x)))
}

// turns is FMUL.RZ x, 1/(2π): the product rounded towards zero, kept
// subnormal (MUFU flushes it).
func turns(x float32) uint32 {
	p := float64(x) * float64(float32(0.15915493667125701904))
	if p != p {
		return qnan32
	}
	return f32rz(p)
}

// sin.approx and cos.approx are the same SASS with or without .ftz.
func SinApprox(x float32) float32 { return B32F(MufuSinCos(turns(x), false)) }
func CosApprox(x float32) float32 { return B32F(MufuSinCos(turns(x), true)) }

func TanhApprox(x float32) float32 { return B32F(mufuTanh(F32B(x))) }
