// Surfaces: suld and sust.b addressing (x in bytes; .clamp, .zero, .trap),
// formatted stores (sust.p) and reductions (sured.b, sured.p), bit-exact
// with the H100 (rt/soft/testdata/tex/NOTES.md, "Formatted stores and
// reductions"; replayed by rt/soft's TestSurfRecorded).

package texunit

import (
	"sync"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// SurfElemX turns the element coordinate x of a formatted store (sust.p)
// into the byte coordinate surfOffset takes. Coordinates outside the row
// stay outside on the same side, so that .clamp, .zero and .trap see them
// as the H100 does (x counts elements; no misalignment is possible).
func SurfElemX(v *View, geom int, c [4]uint32, mode int) [4]uint32 {
	return surfUnitX(v, geom, c, v.TexelBytes(), mode)
}

// surfUnitX turns a coordinate x that counts units of unit bytes (sust.p:
// elements; sured.p: accesses, surfRedP; sured.b: x/size, surfRedX) into
// the byte coordinate surfOffset takes under mode. The row holds n =
// rowBytes/unit whole units (rounded down); x < 0 stays outside before
// the row, and x >= n (an access that does not fit in the row, whole or
// in part) is, under .clamp, the last whole unit n-1 and otherwise stays
// outside after the row, so that .zero drops it and .trap faults. This is
// what the H100 does on rows that are not a whole number of accesses
// (surf5.bin.zst: sured.p on u8x1, u16x1 and u8x2 rows of 3, 5, 6, 10 and
// 12 bytes; surf6.bin.zst: sured.b there, and .trap): on a 6-byte row
// sured.p.add.b32 at x = 1 (bytes 4 to 7) adds to bytes 0 to 3 under
// .clamp, changes nothing under .zero and is an illegal address under
// .trap. With no whole unit in the row (n = 0: .b32 on 3 bytes, .b64 on 5
// or 6) surfOffset drops every access, as the H100 does under .clamp and
// .zero (under .trap it faults, surfRedOffset).
func surfUnitX(v *View, geom int, c [4]uint32, unit, mode int) [4]uint32 {
	i := 0
	if geom == GeomA1D || geom == GeomA2D {
		i = 1
	}
	u := int64(unit)
	n := int64(v.W*v.TexelBytes()) / u // whole units in a row
	switch x := int64(int32(c[i])); {
	case x < 0:
		c[i] = uint32(int32(-u))
	case x >= n && mode == SurfClamp && n > 0:
		c[i] = uint32(int32((n - 1) * u))
	case x >= n:
		c[i] = uint32(int32(n * u))
	default:
		c[i] = uint32(int32(x * u))
	}
	return c
}

// surfRedX turns the coordinate c of a sured access of size bytes into
// the byte coordinate surfOffset takes under mode: sured.p (elems) counts
// x in accesses (surfRedP); sured.b counts x in bytes, and an aligned x
// is clamped as a sured.p at x/size, so that under .clamp an access that
// does not fit in the row lands on the last whole access in it, not at
// row width − size, and under .zero and .trap it stays outside (the
// H100's sured.b.add.u32 and sured.b.min.u64 on u8x1 rows of 6, 5 and 3
// bytes and a u16x1 row of 10, surf6.bin.zst: on the 10-byte row .u32 at
// x = 8 and 12 adds to bytes 4 to 7 and .u64 at x = 8 takes the min with
// bytes 0 to 7; on 6 and 5 bytes .u32 at x = 4, 8, 12 adds to bytes 0 to
// 3). A misaligned x is left for surfOffset to report.
func surfRedX(v *View, geom int, c [4]uint32, size, mode int, elems bool) [4]uint32 {
	if !elems {
		i := 0
		if geom == GeomA1D || geom == GeomA2D {
			i = 1
		}
		x := int64(int32(c[i]))
		if x%int64(size) != 0 {
			return c
		}
		c[i] = uint32(int32(x / int64(size)))
	}
	return surfUnitX(v, geom, c, size, mode)
}

// SurfRedOffset resolves a sured access of size bytes at the instruction's
// coordinate c (surfRedX) to a byte offset and outcome as surfOffset does,
// except that under .trap an access on a row narrower than itself is out
// of range (an illegal address, as the H100's sured.p.add.b32.trap on a
// 3-byte row at x = 0, surf6.txt), where .clamp and .zero drop it.
func SurfRedOffset(v *View, geom int, c [4]uint32, size, mode int, elems bool) (int, int) {
	off, st := v.SurfOffset(geom, surfRedX(v, geom, c, size, mode, elems), size, mode)
	if st == surfDropped && mode == SurfTrap {
		st = SurfOutOfRange
	}
	return off, st
}

// SurfStoreP runs sust.p: the cnt values, channel 0 first, converted to the
// format of element c (x in elements). Channels the vector does not give
// are written 0; values beyond the element's channels are dropped.
func SurfStoreP(v *View, geom int, c [4]uint32, cnt, mode int, vals [4]uint32) {
	es := v.TexelBytes()
	off, st := v.SurfOffset(geom, SurfElemX(v, geom, c, mode), es, mode)
	if st != SurfOK {
		return
	}
	b := v.Data[off : off+es]
	for i := 0; i < v.NChan; i++ {
		var r uint32
		if i < cnt {
			r = surfConvert(v, vals[i])
		}
		n := v.Bits / 8
		put(b[n*i:], n, uint64(r))
	}
}

// surfConvert converts one sust.p value to a channel of v's format (the
// raw channel bits). Integer formats take the word as .u32 (unsigned) or
// .s32 (signed) and saturate to the channel; 32-bit channels take the word
// as it is (float NaN payloads included). Half channels round the f32
// toward zero (see surfHalfRZ). Normalized channels: see surfNorm.
func surfConvert(v *View, w uint32) uint32 {
	switch {
	case v.Bits == 32:
		return w
	case v.ReadNorm:
		return surfNorm(w, v.Bits, v.Chan == ChanSigned)
	case v.Chan == ChanFloat:
		return surfHalfRZ(w)
	case v.Chan == ChanSigned:
		lim := int32(1)<<(v.Bits-1) - 1
		return uint32(min(max(int32(w), -lim-1), lim)) & (1<<v.Bits - 1)
	}
	return min(w, 1<<v.Bits-1)
}

// ZeroResult says whether tex (never tld4) returns 0 in every channel
// whatever the texture and coordinates (intc: .s32 coordinates):
//   - tex.grad.1d with a depth-compare operand, with or without offsets
//     (tex2-m forms 176 and 219: every one of their 12,288 samples, f32
//     and u8x4 normalized 1-D arrays, point and linear, clamp, wrap and
//     border; tex.grad.a1d and tex.level.1d with a depth compare and
//     tex.grad.1d.f32 without one return the plain sample). With d|p too
//     (probe7 forms 50 and 51, with and without offsets: 512 samples) the
//     zeros come with a true residency predicate.
//   - tex.grad.1d.s32, with or without offsets and d|p (ptxas refuses it
//     with a depth compare): on a 1-D CUDA array (probe7: 1,024 samples,
//     equal to tex.1d.s32, which reads 0 there too) and on linear memory
//     (probe8: 1,024 samples at x = -4..40 on 37 texels, where tex.1d.s32,
//     tex1Dfetch, reads texel x: 864 of them differ). The predicate of
//     d|p is true (probe7, 512 samples on 1-D arrays). Both fit reading
//     the coordinate register's bits as f32, as tex.grad.{2d,3d,a1d,
//     a2d}.s32 does, only on linear memory (a float fetch there reads 0;
//     on a 1-D array it would read texel 0 for the probes' small integers).
func ZeroResult(geom int, grad, depth, intc bool) bool {
	return grad && geom == Geom1D && (depth || intc)
}

var GeomNames = [...]string{"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"}

// Queries of txq and suq (texDims).
const (
	DimWidth = iota
	DimHeight
	DimDepth
)

// Dims answers txq/suq width, height and depth as the H100 does (the
// texture header's: a 1-D array texture has height 1, a 1-D surface and
// linear memory 0; layers count in the next free dimension).
func Dims(v *View, surface bool, q int) uint32 {
	switch q {
	case DimWidth:
		return uint32(v.W)
	case DimHeight:
		switch {
		case v.Res == ResLinear:
			return 0
		case v.Geom == Geom1D:
			if surface {
				return 0
			}
			return 1
		case v.Geom == GeomA1D:
			return uint32(v.Layers)
		}
		return uint32(v.H)
	}
	switch v.Geom {
	case Geom3D:
		return uint32(v.D)
	case GeomA2D:
		return uint32(v.Layers)
	case GeomACube:
		return uint32(v.Layers / 6)
	}
	return 0
}

// surfRedMu guards the rare reduction whose address is not aligned to its
// size (a .b64 access clamped into a surface of 4-byte elements), which
// sync/atomic cannot do.
var surfRedMu sync.Mutex

// SurfReduce runs sured at the instruction's coordinate c (x in bytes,
// or in accesses for sured.p: elems; surfRedOffset): op (atAdd, atMin,
// atMax, atAnd, atOr) of class cls (acU32, acS32, acU64, acS64) with
// value val, atomically, so that concurrent reductions from every CTA add
// up whatever their order (as they do on the H100). Out of range under
// .zero it does nothing; the executor faults for .trap and misalignment
// before calling it.
func SurfReduce(v *View, geom int, c [4]uint32, size, mode int, elems bool, op, cls int, val uint64) {
	off, st := SurfRedOffset(v, geom, c, size, mode, elems)
	if st != SurfOK {
		return
	}
	p := unsafe.Pointer(&v.Data[off])
	if uintptr(p)%uintptr(size) != 0 {
		surfRedMu.Lock()
		defer surfRedMu.Unlock()
		b := v.Data[off : off+size]
		if size == 4 {
			x := uint32(get(b, 4))
			gpumath.Atomic32(&x, op, cls, uint32(val), 0)
			put(b, 4, uint64(x))
		} else {
			x := get(b, 8)
			gpumath.Atomic64(&x, op, cls, val, 0)
			put(b, 8, x)
		}
		return
	}
	if size == 4 {
		gpumath.Atomic32((*uint32)(p), op, cls, uint32(val), 0)
	} else {
		gpumath.Atomic64((*uint64)(p), op, cls, val, 0)
	}
}

// SurfRedP is the class (acU32, acS32, acU64, acS64) a sured.p of size
// bytes (.b32: 4, .b64: 8) works in on v, as the H100 does it whatever the
// format (surf4.bin.zst: f32x1, f32x2, f16x2, unorm8x4, unorm16x2, u8x1,
// u8x4, u16x1, u16x2, s8x4, s16x2 and u32x4 besides surf2/surf3's 32-bit
// integers; surf5.bin.zst: snorm8x4, snorm16x2, snorm8x1, snorm16x1; add,
// min, max, and, or on .b32, min and max on .b64): it is sured.b with x
// counting accesses of size bytes, not elements (the byte coordinate is
// x·size, surfUnitX; clamp, zero and trap act on that byte coordinate as
// for sured.b: see surfUnitX for rows that are not a whole number of
// accesses, surfRedOffset for rows narrower than one), on the raw bits
// there, whatever the element's size or channels: an integer op of the access's width, min and max signed on
// signed formats, integer and normalized (s8x4, s16x2, snorm8/16: .s32,
// .s64), unsigned on every other one, float formats included (no float
// compare, no per-channel op). So on a u8x1 surface sured.p.add.b32 at
// x = 1 adds to the 32 bits of elements 4 to 7, on u32x4 sured.p.b32 at
// x = 5 reduces channel 1 of element 1, and on snorm8x4 sured.p.min.b32
// compares the four channels' bits as one .s32.
func SurfRedP(v *View, size int) int {
	switch signed := v.Chan == ChanSigned; {
	case signed && size == 4:
		return gpumath.AcS32
	case signed:
		return gpumath.AcS64
	case size == 4:
		return gpumath.AcU32
	}
	return gpumath.AcU64
}

// Surface boundary modes (suld/sust .clamp, .zero, .trap).
const (
	SurfClamp = iota
	SurfZero
	SurfTrap
)

// Surface access outcomes besides success.
const (
	SurfOK         = iota
	surfDropped    // .zero out of range: a load reads zeros, a store does nothing
	SurfOutOfRange // .trap out of range: an illegal-address fault
	SurfMisaligned // x not a multiple of the access size, whatever the mode
)

// SurfOffset resolves a surface access of n bytes: x in bytes, y, z in
// elements, layer; geom is the instruction's (texGeom1D, 2D, 3D, A1D, A2D).
// It returns the byte offset of the access from element (0,0,0) of layer 0.
func (v *View) SurfOffset(geom int, c [4]uint32, n int, mode int) (int, int) {
	var x, y, z, l int64
	switch geom {
	case Geom1D:
		x = int64(int32(c[0]))
	case Geom2D:
		x, y = int64(int32(c[0])), int64(int32(c[1]))
	case Geom3D:
		x, y, z = int64(int32(c[0])), int64(int32(c[1])), int64(int32(c[2]))
	case GeomA1D:
		l, x = int64(c[0]&0xffff), int64(int32(c[1]))
	case GeomA2D:
		l, x, y = int64(c[0]&0xffff), int64(int32(c[1])), int64(int32(c[2]))
	}
	// (a surface's layer index is its low 16 bits)
	if x%int64(n) != 0 {
		return 0, SurfMisaligned
	}
	rowBytes := int64(v.W * v.TexelBytes())
	h, d, nl := int64(max(v.H, 1)), int64(max(v.D, 1)), int64(max(v.Layers, 1))
	if rowBytes < int64(n) {
		return 0, surfDropped // wider than a row: sured drops it under .clamp and .zero (surf5, surf6; surfRedOffset faults under .trap); not recorded for suld/sust
	}
	in := x >= 0 && x+int64(n) <= rowBytes && y >= 0 && y < h && z >= 0 && z < d && l < nl
	if !in {
		switch mode {
		case SurfZero:
			return 0, surfDropped
		case SurfTrap:
			return 0, SurfOutOfRange
		}
		x = min(max(x, 0), rowBytes-int64(n))
		y = min(max(y, 0), h-1)
		z = min(max(z, 0), d-1)
		l = min(l, nl-1)
	}
	return int(((l*d+z)*h+y)*int64(v.rowPitch()) + x), SurfOK
}

// SurfLoad runs suld.b: cnt values of size bytes; b64 values fill two
// result words each. A misaligned or trapping access returns zeros here;
// the executor faults before calling it.
func SurfLoad(v *View, geom int, c [4]uint32, size, cnt, mode int) [4]uint32 {
	var o [4]uint32
	off, st := v.SurfOffset(geom, c, size*cnt, mode)
	if st != SurfOK {
		return o
	}
	b := v.Data[off:]
	for i := 0; i < cnt; i++ {
		q := get(b[size*i:], size)
		if size == 8 {
			o[2*i], o[2*i+1] = uint32(q), uint32(q>>32)
		} else {
			o[i] = uint32(q)
		}
	}
	return o
}

// SurfStore runs sust.b with the values in vals (b64 values as word pairs).
func SurfStore(v *View, geom int, c [4]uint32, size, cnt, mode int, vals [4]uint32) {
	off, st := v.SurfOffset(geom, c, size*cnt, mode)
	if st != SurfOK {
		return
	}
	b := v.Data[off:]
	for i := 0; i < cnt; i++ {
		q := uint64(vals[i])
		if size == 8 {
			q = uint64(vals[2*i]) | uint64(vals[2*i+1])<<32
		}
		put(b[size*i:], size, q)
	}
}
