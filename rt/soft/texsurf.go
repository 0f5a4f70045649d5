// Formatted surface stores (sust.p) and surface reductions (sured.b,
// sured.p), bit-exact with the H100 (testdata/tex/NOTES.md, "Formatted
// stores and reductions"; replayed by TestSurfRecorded).

package soft

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/cugen/cugen/parse/ptx"
)

// suredCheck refuses the sured forms ptxas refuses (CUDA 13.0, probed on
// the H100's machine: testdata/tex/probe-forms.txt), which are the PTX
// ISA's rules: sured.b takes .add on .u32, .s32, .u64; .min and .max on
// .u32, .s32, .u64, .s64; .and and .or on .b32; sured.p takes .b32 for
// every operation and .b64 for .min and .max; the geometry is .1d, .2d or
// .3d.
func suredCheck(dc *decoder, in *ptx.Instr, ti *texInstr, op, ty string) {
	if ti.geom < 0 || ti.geom > texGeom3D {
		dc.failIn(in, "sured takes .1d, .2d or .3d")
	}
	if ti.cnt != 1 {
		dc.failIn(in, "sured takes one value, not a vector")
	}
	if op == "" || ty == "" {
		dc.failIn(in, "want sured.{b,p}.op.geom.type (op .add, .min, .max, .and or .or)")
	}
	ok := false
	switch {
	case ti.elems:
		ok = ti.rcls < 0 && (ti.size == 4 || ti.red == atMin || ti.red == atMax)
	case ti.red == atAdd:
		ok = ti.rcls == acU32 || ti.rcls == acS32 || ti.rcls == acU64
	case ti.red == atMin, ti.red == atMax:
		ok = ti.rcls >= 0
	default: // and, or
		ok = ti.rcls < 0 && ti.size == 4
	}
	if !ok {
		want := map[int]string{atAdd: ".u32, .s32 or .u64", atMin: ".u32, .s32, .u64 or .s64", atMax: ".u32, .s32, .u64 or .s64",
			atAnd: ".b32", atOr: ".b32"}[ti.red]
		kind := "b"
		if ti.elems {
			kind, want = "p", ".b32"
			if ti.red == atMin || ti.red == atMax {
				want = ".b32 or .b64"
			}
		}
		dc.failIn(in, "sured.%s.%s takes %s, not .%s (ptxas refuses the rest)", kind, op, want, ty)
	}
}

// surfRedMu guards the rare reduction whose address is not aligned to its
// size (a .b64 access clamped into a surface of 4-byte elements), which
// sync/atomic cannot do.
var surfRedMu sync.Mutex

// surfReduce runs sured at the instruction's coordinate c (x in bytes,
// or in accesses for sured.p: elems; surfRedOffset): op (atAdd, atMin,
// atMax, atAnd, atOr) of class cls (acU32, acS32, acU64, acS64) with
// value val, atomically, so that concurrent reductions from every CTA add
// up whatever their order (as they do on the H100). Out of range under
// .zero it does nothing; the executor faults for .trap and misalignment
// before calling it.
func surfReduce(v *texView, geom int, c [4]uint32, size, mode int, elems bool, op, cls int, val uint64) {
	off, st := surfRedOffset(v, geom, c, size, mode, elems)
	if st != surfOK {
		return
	}
	p := unsafe.Pointer(&v.Data[off])
	if uintptr(p)%uintptr(size) != 0 {
		surfRedMu.Lock()
		defer surfRedMu.Unlock()
		b := v.Data[off : off+size]
		if size == 4 {
			x := binary.LittleEndian.Uint32(b)
			atomic32(&x, op, cls, uint32(val), 0)
			binary.LittleEndian.PutUint32(b, x)
		} else {
			x := binary.LittleEndian.Uint64(b)
			atomic64(&x, op, cls, val, 0)
			binary.LittleEndian.PutUint64(b, x)
		}
		return
	}
	if size == 4 {
		atomic32((*uint32)(p), op, cls, uint32(val), 0)
	} else {
		atomic64((*uint64)(p), op, cls, val, 0)
	}
}

// surfRedP is the class (acU32, acS32, acU64, acS64) a sured.p of size
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
func surfRedP(v *texView, size int) int {
	switch signed := v.Chan == texChanSigned; {
	case signed && size == 4:
		return acS32
	case signed:
		return acS64
	case size == 4:
		return acU32
	}
	return acU64
}
