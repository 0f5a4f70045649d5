// Package texunit is the H100's texture unit: texture sampling (tex,
// tld4) and surface access (suld, sust, sured), bit-exact with the GPU.
//
// A View describes one texture or surface the way the unit sees it,
// independent of how the driver stores CUDA arrays and texture objects;
// sampling, gathering and the surface accesses are functions of a view and
// an instruction's coordinates. The rules were read off the H100
// (rt/soft/testdata/tex, NOTES.md there) and are replayed bit for bit by
// rt/soft's texture tests. The files:
//
//	view.go     View, texel fetch, coordinates and address modes, format conversion, border colours
//	sample.go   tex: point and linear filtering, normalized and sRGB textures, integer fetches
//	blend.go    the filter's arithmetic: 8-bit weights, block-floating-point blend, sRGB table
//	gather.go   tld4, seamless cube-map gathers included
//	cube.go     cube maps: projection onto faces, seamless filtering across them
//	surface.go  suld, sust.b, formatted stores (sust.p) and reductions (sured)
//
// It imports gpumath (MUFU.RCP, half rounding) and nothing else of the
// project.

package texunit

import (
	"math"
	"unsafe"

	"github.com/cugen/cugen/rt/soft/internal/devmem"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

// Resource kinds.
const (
	ResArray   = iota // a CUDA array (also layered and cubemap arrays)
	ResLinear         // linear memory: 1-D, no filtering
	ResPitch2D        // pitched linear memory: 2-D
)

// Geometries, in PTX order.
const (
	Geom1D = iota
	Geom2D
	Geom3D
	GeomA1D
	GeomA2D
	GeomCube
	GeomACube
)

// Channel kinds.
const (
	ChanUnsigned = iota
	ChanSigned
	ChanFloat
)

// Address modes, CUDA's numbering (cudaTextureAddressMode).
const (
	texAddrWrap = iota
	texAddrClamp
	texAddrMirror
	texAddrBorder
)

// View is everything the sampler reads: the resource and the sampler
// state of a texture object, or the resource of a surface object.
type View struct {
	Res      int // texRes*
	Geom     int // texGeom*: the resource's shape
	Chan     int // texChan*
	Bits     int // bits per channel: 8, 16 or 32
	NChan    int // 1, 2 or 4
	W, H, D  int // extent in texels (H, D 1 when unused)
	Layers   int // layers of a layered array; faces (6 per layer) of a cubemap; 0 otherwise
	Pitch    int // bytes per row; 0 means W*texel size
	Data     []byte
	Addr     [3]int // texAddr* per dimension
	Linear   bool   // linear filtering
	Norm     bool   // normalized coordinates
	ReadNorm bool   // 8/16-bit integers read as normalized floats
	SRGB     bool
	Seamless bool      // cube maps: cudaTextureDesc.seamlessCubemap
	Border   [4]uint32 // border colour, float bits
}

func (v *View) TexelBytes() int { return v.Bits / 8 * v.NChan }

func (v *View) rowPitch() int {
	if v.Pitch != 0 {
		return v.Pitch
	}
	return v.W * v.TexelBytes()
}

// texel returns the raw channels of texel (x, y, z) of layer l, all in range.
func (v *View) texel(x, y, z, l int) [4]uint32 {
	h, d := max(v.H, 1), max(v.D, 1)
	off := ((l*d+z)*h+y)*v.rowPitch() + x*v.TexelBytes()
	var c [4]uint32
	b := v.Data[off:]
	for i := 0; i < v.NChan; i++ {
		n := v.Bits / 8
		c[i] = uint32(get(b[n*i:], n))
	}
	return c
}

// Op is the instruction's part in a sample: geometry, coordinate and
// result types, gather component, explicit level.
type Op struct {
	Geom      int
	IntCoords bool
	RType     int // 0 f32, 1 s32, 2 u32
	Gather    bool
	Comp      int
	Level     bool
	Offs      bool     // texel offsets (tex and tld4 with an offset vector)
	Off       [3]int32 // the offsets, as the instruction's registers hold them
}

// Resident is tex's residency predicate (d|p): every texel of a
// texture here is resident (no sparse arrays), and the H100 answered true
// for every recorded sample (8,192 on tex.2d, out-of-range coordinates and
// border texels included).
const Resident = true

// texOffset is a texel offset as the H100 applies it: the low 4 bits
// (tex, -8..7) or 6 bits (tld4, -32..31) of the register, signed, added to
// the texel index after scaling (before the address mode).
func texOffset(o int32, gather bool) int64 {
	if gather {
		return int64(o << 26 >> 26)
	}
	return int64(o << 28 >> 28)
}

// texCoord is one dimension's coordinate after scaling: the integer texel
// and, for linear filtering, the 8-bit weight of the next texel.
type texCoord struct {
	i   int64 // texel index (the first of the pair when filtering)
	a   int64 // weight of texel i+1, in 1/256
	nan bool
}

// texAxis maps a coordinate to texel space for one dimension of extent n
// and address mode mode. Float coordinates are flushed to zero if
// subnormal; normalized ones are cut to 21 fractional bits (toward -inf),
// after reducing them to one period for wrap and mirror.
func (v *View) texAxis(c uint32, n int, mode int, intc, linear bool) texCoord {
	if intc {
		return texCoord{i: int64(int32(c))}
	}
	if c&0x7f800000 == 0 {
		c &= 0x80000000
	}
	f := float64(math.Float32frombits(c))
	if math.IsNaN(f) {
		f = 0
	}
	return v.texAxisF(f, n, mode, v.Norm, linear)
}

// texAxisF is texAxis from a coordinate already read as a number (not
// NaN), normalized or not.
func (v *View) texAxisF(f float64, n int, mode int, norm, linear bool) texCoord {
	if norm {
		switch mode {
		case texAddrWrap:
			if math.IsInf(f, 0) {
				f = 0
			}
			f -= math.Floor(f)
		case texAddrMirror:
			if math.IsInf(f, 0) {
				f = 0
			}
			f -= 2 * math.Floor(f/2)
		}
		f = math.Floor(f*(1<<21)) / (1 << 21)
		if texMirrorFold && mode == texAddrMirror && f >= 1 {
			f = 2 - f
		}
		f *= float64(n)
	}
	if linear {
		f -= 0.5
	}
	if !linear {
		return texCoord{i: clampI64(math.Floor(f))}
	}
	// The filter position is f rounded (half up) to 1/256 of a texel: its
	// integer part picks the texels, its fraction weighs them.
	q := clampI64(math.Floor(f*256 + 0.5))
	if math.IsInf(f, 0) {
		q = clampI64(f) * 256
	}
	return texCoord{i: q >> 8, a: q & 255}
}

var texMirrorFold = false

func clampI64(f float64) int64 {
	if f >= 1<<40 {
		return 1 << 40
	}
	if f <= -(1 << 40) {
		return -(1 << 40)
	}
	return int64(f)
}

// texAddress applies an address mode to texel index i of extent n; ok is
// false for a border texel.
func texAddress(mode int, i int64, n int) (int, bool) {
	N := int64(n)
	switch mode {
	case texAddrBorder:
		if i < 0 || i >= N {
			return 0, false
		}
		return int(i), true
	case texAddrWrap:
		i %= N
		if i < 0 {
			i += N
		}
		return int(i), true
	case texAddrMirror:
		p := i % (2 * N)
		if p < 0 {
			p += 2 * N
		}
		if p >= N {
			p = 2*N - 1 - p
		}
		return int(p), true
	}
	return int(min(max(i, 0), N-1)), true
}

// texFetch returns texel (x, y, z) of layer l as the sampler's result
// channels: raw integers for element reads of integer formats, float bits
// otherwise.
func (v *View) texFetch(x, y, z, l int) [4]uint32 {
	raw := v.texel(x, y, z, l)
	return v.convert(raw)
}

func (v *View) floatResult() bool { return v.Chan == ChanFloat || v.ReadNorm }

func (v *View) convert(raw [4]uint32) [4]uint32 {
	var o [4]uint32
	for i := 0; i < v.NChan; i++ {
		r := raw[i]
		switch {
		case v.Chan == ChanFloat && v.Bits == 32:
			o[i] = r
		case v.Chan == ChanFloat:
			o[i] = texHalf(r)
		case !v.ReadNorm && v.Chan == ChanUnsigned:
			o[i] = r
		case !v.ReadNorm:
			o[i] = uint32(int32(r<<(32-v.Bits)) >> (32 - v.Bits))
		case v.Chan == ChanUnsigned:
			m := float64(uint32(1)<<v.Bits - 1)
			if v.SRGB && v.Bits == 8 && texSRGBChan(i, v.NChan) {
				o[i] = uint32(texSRGB[r]) << 16
			} else {
				o[i] = math.Float32bits(float32(float64(r) / m))
			}
		default:
			s := int32(r<<(32-v.Bits)) >> (32 - v.Bits)
			m := float64(int32(1)<<(v.Bits-1) - 1)
			o[i] = math.Float32bits(float32(max(float64(s)/m, -1)))
		}
	}
	return o
}

// texSRGBChan says whether channel i of an nch-channel sRGB texture is
// decoded: red, green and blue of four-channel textures, only the first
// channel of one- and two-channel ones (the second reads as plain unorm, like
// alpha).
func texSRGBChan(i, nch int) bool {
	return i == 0 || nch == 4 && i < 3
}

// borderTexel is the border colour as the sampler returns it.
func (v *View) borderTexel() [4]uint32 {
	var o [4]uint32
	if !v.floatResult() {
		// integer element reads see the colour's float bits cut to the
		// channel width
		for i := 0; i < v.NChan; i++ {
			o[i] = v.Border[i] & uint32(uint64(1)<<v.Bits-1)
		}
		return v.convert(o)
	}
	if v.Chan == ChanUnsigned {
		// the colour as a texel of the format (sRGB-decoded channels: its
		// 8-bit sRGB code), read as one
		return v.convert(v.borderRaw())
	}
	for i := 0; i < v.NChan; i++ {
		b := float64(math.Float32frombits(v.Border[i]))
		switch {
		case v.Chan == ChanFloat && v.Bits == 32:
			o[i] = v.Border[i]
		case v.Chan == ChanFloat:
			o[i] = texHalf(uint32(gpumath.F16.Round(b, gpumath.RN)))
		default:
			// as a formatted store converts it (surfNorm: cut to k+4
			// fractional bits, ties toward zero), recorded in tex2-srg3
			m := float64(int32(1)<<(v.Bits-1) - 1)
			sh := 32 - v.Bits
			q := float64(int32(surfNorm(v.Border[i], v.Bits, true)<<sh) >> sh)
			if v.ReadNorm {
				o[i] = math.Float32bits(float32(q / m))
			} else {
				o[i] = uint32(int32(q))
			}
		}
	}
	return o
}

// texAddr applies dimension d's address mode (wrap and mirror act as clamp
// with unnormalized coordinates, norm false).
func (v *View) texAddr(d int, i int64, n int, norm bool) (int, bool) {
	mode := v.Addr[d]
	if !norm && mode != texAddrBorder {
		mode = texAddrClamp
	}
	return texAddress(mode, i, n)
}

// get is the size-byte little-endian value at the start of b, a texture's
// memory (read through devmem: other CTAs may write it).
func get(b []byte, size int) uint64 {
	_ = b[size-1]
	return devmem.Load(unsafe.Pointer(&b[0]), uint16(size))
}

// put writes the low size bytes of v at the start of b.
func put(b []byte, size int, v uint64) {
	_ = b[size-1]
	devmem.Store(unsafe.Pointer(&b[0]), uint16(size), v)
}
