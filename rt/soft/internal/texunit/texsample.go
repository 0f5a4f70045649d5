// Texture sampling and surface access, bit-exact with the H100.
//
// texView describes one texture or surface the way the sampler needs it,
// independent of how the driver side stores CUDA arrays and texture
// objects; sample, gather and the surface helpers are pure functions of a
// view and the instruction's coordinates. The rules were read off the H100
// (rt/soft/testdata/tex, NOTES.md there) and are replayed bit for bit by
// TestTexRecorded.

package texunit

import (
	"encoding/binary"
	"github.com/cugen/cugen/rt/soft/internal/gpumath"
	"math"
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

// texView is everything the sampler reads: the resource and the sampler
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
		switch v.Bits {
		case 8:
			c[i] = uint32(b[i])
		case 16:
			c[i] = uint32(binary.LittleEndian.Uint16(b[2*i:]))
		default:
			c[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
	}
	return c
}

// texOp is the instruction's part in a sample: geometry, coordinate and
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

// texResident is tex's residency predicate (d|p): every texel of a
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

// sample runs one tex instruction.
func (v *View) Sample(op Op, c [4]uint32) [4]uint32 {
	dims := [3]int{v.W, max(v.H, 1), max(v.D, 1)}
	nd := 1
	var xyz [3]uint32
	layer := 0
	switch op.Geom {
	case Geom1D:
		xyz[0] = c[0]
	case Geom2D:
		nd, xyz[0], xyz[1] = 2, c[0], c[1]
	case Geom3D:
		nd, xyz = 3, [3]uint32{c[0], c[1], c[2]}
	case GeomA1D:
		layer, xyz[0] = texLayer(c[0], v.Layers), c[1]
	case GeomA2D:
		nd, xyz[0], xyz[1] = 2, c[1], c[2]
		layer = texLayer(c[0], v.Layers)
	case GeomCube, GeomACube:
		if op.IntCoords || v.Geom != GeomCube && v.Geom != GeomACube || v.Layers < 6 {
			return [4]uint32{} // not a cube map (or no .f32 direction)
		}
		return v.sampleCube(op.Geom, c)
	default:
		return [4]uint32{}
	}
	if op.IntCoords {
		if (op.Geom == GeomA1D || op.Geom == GeomA2D) && c[0] >= uint32(max(v.Layers, 1)) {
			return [4]uint32{}
		}
		return v.fetchInt(op, nd, xyz, dims, layer)
	}
	if v.Res == ResLinear {
		// float coordinates on linear memory (tex1D rather than
		// tex1Dfetch): the H100 read 0 in every recorded configuration
		return [4]uint32{}
	}
	linear := v.Linear
	if linear && op.Geom == Geom1D {
		// A 1-D texture filters as a 2-D one of height 1 sampled at y = 0:
		// half the weight goes to row -1, which is row 0 again except
		// under border addressing.
		nd, xyz[1] = 2, 0
	}
	if op.Offs && op.Geom == Geom1D {
		// tex.1d's offset register goes to the texture unit unmasked:
		// bits 4-7 are a y offset into the 1-D texture's single row
		nd, xyz[1] = 2, 0
		op.Off[1] = op.Off[0] >> 4
	}
	var tc [3]texCoord
	for d := 0; d < nd; d++ {
		tc[d] = v.texAxis(xyz[d], dims[d], v.Addr[d], op.IntCoords, linear)
		if op.Offs {
			tc[d].i += texOffset(op.Off[d], false)
		}
	}
	return v.sampleAt(nd, tc, layer, v.Norm, linear)
}

// sampleAt reads (point) or filters (linear) the texels of layer layer at
// texel-space coordinates tc, applying the address modes; norm says
// whether the coordinates were normalized (wrap and mirror need that).
func (v *View) sampleAt(nd int, tc [3]texCoord, layer int, norm, linear bool) [4]uint32 {
	dims := [3]int{v.W, max(v.H, 1), max(v.D, 1)}
	// fetch returns the raw channels of the texel at ix, or border true
	fetch := func(ix [3]int64) (raw [4]uint32, border bool) {
		var p [3]int
		for d := 0; d < 3; d++ {
			if d >= nd {
				continue
			}
			mode := v.Addr[d]
			if !norm && mode != texAddrBorder {
				mode = texAddrClamp // wrap and mirror need normalized coordinates
			}
			q, ok := texAddress(mode, ix[d], dims[d])
			if !ok {
				return raw, true
			}
			p[d] = q
		}
		return v.texel(p[0], p[1], p[2], layer), false
	}
	if !linear {
		raw, border := fetch([3]int64{tc[0].i, tc[1].i, tc[2].i})
		if border {
			return v.borderTexel()
		}
		return v.convert(raw)
	}
	if nd == 3 {
		// Under clamp a 3-D filter position outside [0, n-1] is clamped
		// before it is split: the fraction becomes 0. (For 1-D and 2-D
		// weights this changes nothing; the 3-D ones are not separable.)
		for d := 0; d < 3; d++ {
			if v.Addr[d] != texAddrClamp && (norm || v.Addr[d] == texAddrBorder) {
				continue
			}
			if tc[d].i < 0 {
				tc[d].i, tc[d].a = 0, 0
			} else if tc[d].i >= int64(dims[d])-1 {
				tc[d].i, tc[d].a = int64(dims[d])-1, 0
			}
		}
	}
	return v.filter(nd, tc, fetch)
}

// texLayer clamps a layer index, taken as unsigned, to the last layer.
func texLayer(c uint32, n int) int {
	return int(min(uint64(c), uint64(max(n, 1)-1)))
}

// filter blends the 2, 4 or 8 texels around the coordinate.
func (v *View) filter(nd int, tc [3]texCoord, fetch func([3]int64) ([4]uint32, bool)) [4]uint32 {
	var w [8]int64
	var tx [8][4]uint32
	var bd [8]bool
	n := 1 << nd
	for k := 0; k < n; k++ {
		var ix [3]int64
		for d := 0; d < nd; d++ {
			ix[d] = tc[d].i + int64(k>>d&1)
		}
		tx[k], bd[k] = fetch(ix)
	}
	switch nd {
	case 1:
		w[0], w[1] = 256-tc[0].a, tc[0].a
	case 2:
		a, b := tc[0].a, tc[1].a
		w11 := (a*b + 128) >> 8
		w[3], w[1], w[2] = w11, a-w11, b-w11
		w[0] = 256 - a - b + w11
	case 3:
		w = tex3DWeights(tc[0].a, tc[1].a, tc[2].a)
	}
	if v.ReadNorm && v.Chan != ChanFloat {
		o := v.filterNorm(tx[:n], bd[:n], w[:n])
		if v.SRGB && v.Bits == 8 {
			v.filterSRGB(&o, tx[:n], bd[:n], w[:n])
		}
		return o
	}
	for k := 0; k < n; k++ {
		if bd[k] {
			tx[k] = v.borderTexel()
		} else {
			tx[k] = v.convert(tx[k])
		}
	}
	// live: texels that are not the far one of an axis with fraction 0
	live := uint32(1)<<n - 1
	for d := 0; d < nd; d++ {
		if tc[d].a == 0 {
			for k := 0; k < n; k++ {
				if k>>d&1 != 0 {
					live &^= 1 << k
				}
			}
		}
	}
	half := v.Chan == ChanFloat && v.Bits == 16
	var o [4]uint32
	for ch := 0; ch < 4; ch++ {
		var t [8]uint32
		for k := 0; k < n; k++ {
			t[k] = tx[k][ch]
		}
		o[ch] = texBlend(t[:n], w[:n], live, half)
	}
	return o
}

// filterNorm filters 8/16-bit normalized integer texels (raw channels in
// tx; border texels are the border colour in the format, borderRaw). The
// weighted sum of the integers is exact; the H100 rounds it (half up) to a
// 16-bit fixed-point value, unorm U in [0, 65535] or snorm S in
// [-32768, 32767], and returns that as U/65535 or max(S/32767, -1) rounded
// to float. For s8 the rounding of sum*32767/(127*256) is the H100's
// truncated series (texS8Snorm16), not the exact quotient.
func (v *View) filterNorm(tx [][4]uint32, bd []bool, w []int64) [4]uint32 {
	var b [4]uint32
	for k := range bd {
		if bd[k] {
			b = v.borderRaw()
			break
		}
	}
	var o [4]uint32
	for ch := 0; ch < v.NChan; ch++ {
		var sum int64 // in units of 1/256 of a format step
		for k := range tx {
			r := tx[k][ch]
			if bd[k] {
				r = b[ch]
			}
			if v.Chan == ChanSigned {
				sum += int64(int32(r<<(32-v.Bits))>>(32-v.Bits)) * w[k]
			} else {
				sum += int64(r) * w[k]
			}
		}
		switch {
		case v.Chan == ChanUnsigned && v.Bits == 8:
			// U = round(sum * 65535 / (255*256)) = round(sum*257/256)
			o[ch] = math.Float32bits(float32(float64((sum*257+128)>>8) / 65535))
		case v.Chan == ChanUnsigned:
			o[ch] = math.Float32bits(float32(float64((sum+128)>>8) / 65535))
		case v.Bits == 16:
			o[ch] = math.Float32bits(float32(max(float64((sum+128)>>8)/32767, -1)))
		default:
			o[ch] = math.Float32bits(float32(max(float64(texS8Snorm16(sum))/32767, -1)))
		}
	}
	return o
}

// borderRaw is the border colour converted to an 8/16-bit normalized
// format, as raw channels: unorm channels as formatted stores convert
// (surfNorm: NaN 0, cut to k+4 fractional bits, rounded ties toward zero,
// so 0.1 gives 6553 and 0.5 32767 in 16 bits, where rounding to nearest
// gives 6554 and 32768), sRGB-decoded ones to their 8-bit sRGB code, snorm
// ones rounded to nearest even (no snorm tie recorded).
func (v *View) borderRaw() [4]uint32 {
	var o [4]uint32
	for i := 0; i < v.NChan; i++ {
		switch {
		case v.Chan == ChanUnsigned && v.SRGB && v.Bits == 8 && texSRGBChan(i, v.NChan):
			o[i] = uint32(texSRGBEncode(v.Border[i]))
		case v.Chan == ChanUnsigned:
			o[i] = surfNorm(v.Border[i], v.Bits, false)
		default:
			o[i] = surfNorm(v.Border[i], v.Bits, true) & (uint32(1)<<v.Bits - 1)
		}
	}
	return o
}

// filterSRGB filters the sRGB-decoded channels of 8-bit texels (raw
// channels in tx), replacing them in o. Each texel's code is decoded through
// texSRGB (8 significant bits); the decoded values are aligned to the
// exponent E of the decoded value of (c|7), c the largest code among the
// texels of nonzero weight (the H100 picks the exponent from the code's top
// five bits, so E can be one more than the largest texel's exponent), and
// cut to multiples of 2^(E-7); the weighted sum is exact and rounded to half
// precision, ties away from zero. A border texel is a texel of the border
// colour's sRGB code (texSRGBEncode), like any other.
func (v *View) filterSRGB(o *[4]uint32, tx [][4]uint32, bd []bool, w []int64) {
	var b [4]uint32
	for k := range bd {
		if bd[k] {
			b = v.borderRaw()
			break
		}
	}
	for ch := 0; ch < v.NChan; ch++ {
		if !texSRGBChan(ch, v.NChan) {
			continue
		}
		var t, code [8]uint32
		for k := range tx {
			c := tx[k][ch] & 0xff
			if bd[k] {
				c = b[ch]
			}
			t[k], code[k] = uint32(texSRGB[c])<<16, c
		}
		// each group of 4 texels (a 3-D filter's z planes) on its own
		var sums [2]int64
		var emaxs [2]int
		for g := 0; g < len(tx); g += 4 {
			emax := 0
			for k := g; k < min(g+4, len(tx)); k++ {
				if w[k] != 0 {
					emax = max(emax, int(texSRGB[code[k]|7]>>7))
				}
			}
			// in units of 2^(emax-127-7), texel k is m >> (emax-e+16)
			var sum int64
			for k := g; k < min(g+4, len(tx)); k++ {
				e := int(t[k] >> 23 & 0xff)
				if w[k] == 0 || e == 0 {
					continue
				}
				sh := emax - e + 16
				if sh >= 32 {
					continue
				}
				sum += int64((t[k]&0x7fffff|1<<23)>>uint(sh)) * w[k]
			}
			sums[g/4], emaxs[g/4] = sum, emax
		}
		sum, emax := sums[0], emaxs[0]
		switch {
		case emaxs[1] == 0: // (2-D, or no weight in the second plane)
		case emax == 0:
			sum, emax = sums[1], emaxs[1]
		default:
			sum, emax = PlanesAdd(sum, emax, sums[1], emaxs[1])
		}
		if emax == 0 {
			o[ch] = 0
			continue
		}
		o[ch] = texHalfRoundAway(sum, emax-127-7-8)
	}
}

// fetchInt is tex with integer coordinates: a plain texel fetch, with no
// filtering and no address mode; out-of-range texels read as zero.
func (v *View) fetchInt(op Op, nd int, xyz [3]uint32, dims [3]int, layer int) [4]uint32 {
	if v.Res == ResArray && op.Geom == Geom1D && texInt1DZero {
		return [4]uint32{}
	}
	var p [3]int
	for d := 0; d < nd; d++ {
		i := int64(int32(xyz[d]))
		if op.Offs && v.Res != ResLinear {
			// (tex1Dfetch: linear memory ignores the offsets, tex2-k)
			i += texOffset(op.Off[d], false)
		}
		if i < 0 || i >= int64(dims[d]) {
			return [4]uint32{}
		}
		p[d] = int(i)
	}
	return v.texFetch(p[0], p[1], p[2], layer)
}

var texInt1DZero = true

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

// surfOffset resolves a surface access of n bytes: x in bytes, y, z in
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

// surfLoad runs suld.b: cnt values of size bytes; b64 values fill two
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
		switch size {
		case 1:
			o[i] = uint32(b[i])
		case 2:
			o[i] = uint32(binary.LittleEndian.Uint16(b[2*i:]))
		case 4:
			o[i] = binary.LittleEndian.Uint32(b[4*i:])
		case 8:
			q := binary.LittleEndian.Uint64(b[8*i:])
			o[2*i], o[2*i+1] = uint32(q), uint32(q>>32)
		}
	}
	return o
}

// surfStore runs sust.b with the values in vals (b64 values as word pairs).
func SurfStore(v *View, geom int, c [4]uint32, size, cnt, mode int, vals [4]uint32) {
	off, st := v.SurfOffset(geom, c, size*cnt, mode)
	if st != SurfOK {
		return
	}
	b := v.Data[off:]
	for i := 0; i < cnt; i++ {
		switch size {
		case 1:
			b[i] = byte(vals[i])
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(vals[i]))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], vals[i])
		case 8:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(vals[2*i])|uint64(vals[2*i+1])<<32)
		}
	}
}

var texGatherOrder = [4][2]int{{0, 1}, {1, 1}, {1, 0}, {0, 0}}

// gather runs tld4.2d: component comp of the four texels a bilinear
// sample at c would blend, counter-clockwise from the lower left: (i, j+1),
// (i+1, j+1), (i+1, j), (i, j). NaNs come back canonical and subnormal f32
// texels flushed to a zero of their sign; Infs, -0 and the rest as stored.
func (v *View) gather(comp int, c [4]uint32) [4]uint32 {
	return v.GatherOp(Op{Geom: Geom2D, Gather: true, Comp: comp}, c)
}

// gatherOp runs tld4 of any geometry: .2d (c: x, y), .a2d (c: layer, x,
// y; the layer clamped as unsigned like tex.a2d's), .cube (c: a
// direction, projected on a face as tex.cube does, the face coordinates
// normalized whatever the texture's flag) and .acube (c: layer, then the
// direction; the cube index clamped as unsigned like tex.acube's), with
// texel offsets when op has them (added to the first texel's indices).
func (v *View) GatherOp(op Op, c [4]uint32) [4]uint32 {
	layer, norm := 0, v.Norm
	var tx, ty texCoord
	switch op.Geom {
	case Geom2D:
		tx = v.texAxis(c[0], v.W, v.Addr[0], false, true)
		ty = v.texAxis(c[1], max(v.H, 1), v.Addr[1], false, true)
	case GeomA2D:
		layer = texLayer(c[0], v.Layers)
		tx = v.texAxis(c[1], v.W, v.Addr[0], false, true)
		ty = v.texAxis(c[2], max(v.H, 1), v.Addr[1], false, true)
	case GeomCube, GeomACube:
		if v.Geom != GeomCube && v.Geom != GeomACube || v.Layers < 6 {
			return [4]uint32{}
		}
		d := [3]uint32{c[0], c[1], c[2]}
		if op.Geom == GeomACube {
			layer = texLayer(c[0], v.Layers/6)
			d = [3]uint32{c[1], c[2], c[3]}
		}
		face, s, t := CubeProject(d)
		if v.Seamless {
			return v.gatherCubeSeamless(op.Comp, layer, face, s, t)
		}
		layer, norm = 6*layer+face, true
		tx = v.texAxisF(texCubeCoord(s), v.W, v.Addr[0], true, true)
		ty = v.texAxisF(texCubeCoord(t), max(v.H, 1), v.Addr[1], true, true)
	default:
		return [4]uint32{}
	}
	if op.Offs {
		tx.i += texOffset(op.Off[0], true)
		ty.i += texOffset(op.Off[1], true)
	}
	var o [4]uint32
	for k, d := range texGatherOrder {
		var t [4]uint32
		ix, okx := v.texAddr(0, tx.i+int64(d[0]), v.W, norm)
		iy, oky := v.texAddr(1, ty.i+int64(d[1]), max(v.H, 1), norm)
		if okx && oky {
			t = v.texFetch(ix, iy, 0, layer)
		} else {
			t = v.borderTexel()
		}
		o[k] = v.gatherChan(t[op.Comp])
	}
	return o
}

// gatherChan is a gathered channel as tld4 returns it: NaNs canonical,
// subnormal f32 texels flushed to a zero of their sign.
func (v *View) gatherChan(o uint32) uint32 {
	if v.floatResult() && o&0x7fffffff > 0x7f800000 {
		o = 0x7fffffff // gathered NaNs come back canonical
		if v.Chan == ChanFloat && v.Bits == 16 {
			o = 0x7fffe000
		}
	}
	if v.Chan == ChanFloat && v.Bits == 32 && o&0x7f800000 == 0 {
		o &= 0x80000000 // subnormal f32 texels are flushed, sign kept
	}
	return o
}

// gatherCubeSeamless is tld4 on a seamless cube map: the 2×2 footprint of
// a bilinear sample at face coordinates s, t of face (of cube cube), its
// texels beyond an edge taken from the neighbouring face as
// sampleCubeSeamless takes them. Where the footprint meets a corner of the
// cube, the missing fourth texel is gathered as a blend of the three that
// exist, the corner split of a weight of 256: 85 to each texel beside it,
// 86 to the one diagonally opposite (tex2-l: every corner gather of the
// texel-numbered cubes, W = 2 and 4, layered or not). f32 texels were
// recorded; f16 and normalized integer texels blend as sampleCubeSeamless
// blends them (unchecked). Integer texels read as integers blend as
// integers (texBlendInt; tex2-sea4 and tex2-sea5: u32, s32, u16, s16, u8
// and s8 texels; tex2-sea6: the ties): the exact sum of the three times
// their weights, in 1/256, cut toward -inf for 32-bit texels and rounded
// to nearest, ties up, for 8- and 16-bit ones.
func (v *View) gatherCubeSeamless(comp, cube, face int, s, t float32) [4]uint32 {
	n := v.W
	tx := v.texAxisF(texCubeCoord(s), n, texAddrClamp, true, true)
	ty := v.texAxisF(texCubeCoord(t), n, texAddrClamp, true, true)
	var raw [4][4]uint32
	var o [4]uint32
	corner := -1
	for k, d := range texGatherOrder {
		f, i, j, ok := CubeNeighbour(face, int(tx.i)+d[0], int(ty.i)+d[1], n)
		if !ok {
			corner = k
			continue
		}
		raw[k] = v.texel(i, j, 0, 6*cube+f)
		o[k] = v.gatherChan(v.convert(raw[k])[comp])
	}
	if corner < 0 {
		return o
	}
	var w [4]int64
	for k, d := range texGatherOrder {
		c := texGatherOrder[corner]
		switch {
		case k == corner:
		case d[0] != c[0] && d[1] != c[1]:
			w[k] = 86
		default:
			w[k] = 85
		}
	}
	if v.ReadNorm && v.Chan != ChanFloat && !v.SRGB {
		var bd [4]bool
		o[corner] = v.filterNorm(raw[:], bd[:], w[:])[comp]
		return o
	}
	var tv [4]uint32
	for k := range raw {
		tv[k] = v.convert(raw[k])[comp]
	}
	if !v.floatResult() {
		o[corner] = texBlendInt(tv[:], w[:], v.Chan == ChanSigned, v.Bits)
		return o
	}
	live := uint32(15) &^ (1 << corner)
	o[corner] = v.gatherChan(texBlend(tv[:], w[:], live, v.Chan == ChanFloat && v.Bits == 16))
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

// Cube maps.
//
// The H100 projects a direction (x, y, z) onto a face as ptxas compiles
// tex.cube: m = max(|x|, |y|, |z|) ignoring NaNs (FMNMX), r = MUFU.RCP(m)
// (which flushes: m = 0 or subnormal gives Inf, m above 2^126 gives 0),
// and each component multiplied by r, rounded to nearest; the texture
// unit then flushes products below 2^-126 to zero (the components
// themselves are not flushed: (1e-40, 0, 0) gives Inf, the +x face). The
// face is the axis of the largest normalized component, ties going to the
// later axis (z over y over x) and NaN components never chosen (all NaN:
// z); it is the positive face unless that component is negative (-0 and
// NaN count as positive). The other two components give s and t by CUDA's
// table (+x: -z, -y; -x: z, -y; +y: x, z; -y: x, -z; +z: x, -y; -z: -x,
// -y), a NaN reading 0 and anything beyond ±1 (x*r can be 1+2^-23) clamped
// to ±1. The face coordinates (s+1)/2 and (t+1)/2 are exact, then cut
// toward -inf to 21 fractional bits like any normalized coordinate
// (s = 1-2^-24 reads the last texel, s = -2^-126 the texel left of the
// middle). They are sampled as normalized 2-D coordinates of face
// 6*layer+face, whatever the texture's normalized-coordinates flag, with
// its filter and address modes (x's mode for s, y's for t): without
// cudaTextureDesc.seamlessCubemap filtering never crosses to another face;
// wrap wraps within the face (s = 1 reads column 0), clamp clamps to its
// edge, mirror mirrors and border reads the border colour at s = 1.
// Seamless cube maps are below.

// texCubeFaces are the face's (s, t) as signed axes: axis+1, negated if
// negative.
var CubeFaces = [6][2]int{{-3, -2}, {3, -2}, {1, 3}, {1, -3}, {1, -2}, {-1, -2}}

// texCubeProject returns the face a direction hits and the face
// coordinates s, t in [-1, 1] (see above).
func CubeProject(d [3]uint32) (face int, s, t float32) {
	var n [3]float32
	m := float32(math.NaN())
	for i, c := range d {
		n[i] = math.Float32frombits(c)
		if a := float32(math.Abs(float64(n[i]))); a == a && !(a <= m) {
			m = a // FMNMX: a NaN loses to any number
		}
	}
	r := gpumath.B32F(gpumath.MufuRcp(gpumath.F32B(m)))
	best := -1
	for i := range n {
		n[i] *= r
		if gpumath.Tiny32(n[i]) {
			n[i] = float32(math.Copysign(0, float64(n[i]))) // as tex flushes coordinates
		}
		if n[i] != n[i] {
			continue
		}
		if best < 0 || math.Abs(float64(n[i])) >= math.Abs(float64(n[best])) {
			best = i
		}
	}
	if best < 0 {
		best = 2
	}
	face = 2 * best
	if n[best] < 0 {
		face++
	}
	st := [2]float32{}
	for k, a := range CubeFaces[face] {
		x := n[gpumath.AbsI(int64(a))-1]
		if a < 0 {
			x = -x
		}
		if x != x {
			x = 0
		}
		st[k] = min(max(x, -1), 1)
	}
	return face, st[0], st[1]
}

// texCubeCoord is the face coordinate (s+1)/2 of s in [-1, 1], cut toward
// -inf to the 21 fractional bits of a normalized coordinate: computed
// exactly, so that s = -2^-126 reads 1/2 - 2^-21.
func texCubeCoord(s float32) float64 {
	return (1<<20 + math.Floor(float64(s)*(1<<20))) / (1 << 21)
}

// sampleCube runs tex.cube (c: x, y, z) and tex.acube (c: layer, x, y, z).
func (v *View) sampleCube(geom int, c [4]uint32) [4]uint32 {
	layer := 0
	d := [3]uint32{c[0], c[1], c[2]}
	if geom == GeomACube {
		layer = texLayer(c[0], v.Layers/6)
		d = [3]uint32{c[1], c[2], c[3]}
	}
	face, s, t := CubeProject(d)
	if v.Seamless {
		return v.sampleCubeSeamless(layer, face, s, t)
	}
	var tc [3]texCoord
	tc[0] = v.texAxisF(texCubeCoord(s), v.W, v.Addr[0], true, v.Linear)
	tc[1] = v.texAxisF(texCubeCoord(t), max(v.H, 1), v.Addr[1], true, v.Linear)
	return v.sampleAt(2, tc, 6*layer+face, true, v.Linear)
}

// Seamless cube maps (cudaTextureDesc.seamlessCubemap).
//
// The face and its coordinates are found as without the flag, but the
// address modes no longer apply: a point sample reads the texel at the
// face coordinate clamped to the face (border reads no border colour, wrap
// does not wrap), and a linear filter whose 2×2 footprint leaves the face
// takes the texels beyond an edge from the neighbouring face (the texel
// row along that edge), with the ordinary 2-D weights. Where three faces
// meet, the footprint's fourth texel does not exist: its weight wc is
// shared out, round(wc/3) to each of the two texels beside it and the rest
// to the one diagonally opposite (so the three weights still sum to 256),
// and NaN or Inf in any of the three counts whatever its weight. Read off
// the H100 (rt/soft/testdata/tex/tex2-e.bin.zst: impulses on every texel of the
// three faces around a corner, texel-numbered cubes in every address
// mode, u8 normalized and layered cubes; tex2-h.bin.zst: widths 1, 2, 3, 5,
// f16, u16 and u8 texels, NaN and Inf texels at the corners).

// texCubeNeighbour returns the texel (i, j) of face, 0 <= i, j < n or one
// beyond on a single axis, as face f and texel (fi, fj) of the cube: a
// texel beyond an edge is the neighbouring face's texel along that edge.
// ok is false for a texel beyond two edges (a corner of the cube).
func CubeNeighbour(face, i, j, n int) (f, fi, fj int, ok bool) {
	outI, outJ := i < 0 || i >= n, j < 0 || j >= n
	if !outI && !outJ {
		return face, i, j, true
	}
	if outI && outJ {
		return 0, 0, 0, false
	}
	// Positions in units of half a texel, the cube spanning [-n, n]: the
	// texel centre (2i+1-n, 2j+1-n) on the face, folded over the edge onto
	// the next face, where it lies half a texel (n-1) from the edge.
	var p [3]int
	p[face/2] = n - 1
	if face&1 != 0 {
		p[face/2] = 1 - n
	}
	st := [2]int{min(max(2*i+1-n, -n), n), min(max(2*j+1-n, -n), n)}
	for k, a := range CubeFaces[face] {
		x := st[k]
		if a < 0 {
			x = -x
		}
		p[gpumath.AbsI(int64(a))-1] = x
	}
	for ax := range p {
		if ax == face/2 || gpumath.AbsI(int64(p[ax])) != int64(n) {
			continue
		}
		f = 2 * ax
		if p[ax] < 0 {
			f++
		}
	}
	var ij [2]int
	for k, a := range CubeFaces[f] {
		x := p[gpumath.AbsI(int64(a))-1]
		if a < 0 {
			x = -x
		}
		ij[k] = (x + n - 1) / 2
	}
	return f, ij[0], ij[1], true
}

// sampleCubeSeamless samples face of layer at face coordinates s, t of a
// seamless cube map (see above).
func (v *View) sampleCubeSeamless(layer, face int, s, t float32) [4]uint32 {
	n := v.W
	tx := v.texAxisF(texCubeCoord(s), n, texAddrClamp, true, v.Linear)
	ty := v.texAxisF(texCubeCoord(t), n, texAddrClamp, true, v.Linear)
	if !v.Linear {
		i := int(min(max(tx.i, 0), int64(n-1)))
		j := int(min(max(ty.i, 0), int64(n-1)))
		return v.convert(v.texel(i, j, 0, 6*layer+face))
	}
	a, b := tx.a, ty.a
	w11 := (a*b + 128) >> 8
	w := [4]int64{256 - a - b + w11, a - w11, b - w11, w11} // index bit 0 x, bit 1 y
	var raw [4][4]uint32
	corner := -1
	for k := range raw {
		f, i, j, ok := CubeNeighbour(face, int(tx.i)+k&1, int(ty.i)+k>>1, n)
		if !ok {
			corner = k
			continue
		}
		raw[k] = v.texel(i, j, 0, 6*layer+f)
	}
	if corner >= 0 {
		wc := w[corner]
		side := (wc + 1) / 3 // round(wc/3)
		w[corner^1] += side
		w[corner^2] += side
		w[corner^3] += wc - 2*side
		w[corner] = 0
	}
	var bd [4]bool
	if v.ReadNorm && v.Chan != ChanFloat {
		o := v.filterNorm(raw[:], bd[:], w[:])
		if v.SRGB && v.Bits == 8 {
			v.filterSRGB(&o, raw[:], bd[:], w[:]) // as filter (no sRGB cube recorded)
		}
		return o
	}
	// As filter's blend: texels that are the far one of an axis whose
	// fraction is 0 do not count even as NaN or Inf. But where the
	// footprint meets a corner of the cube, all three texels count, even
	// at weight 0 (the H100 answered NaN for a NaN texel there at a = b =
	// 0, tex2-h); the missing corner itself holds nothing.
	live := uint32(15)
	if a == 0 {
		live &^= 0b1010
	}
	if b == 0 {
		live &^= 0b1100
	}
	if corner >= 0 {
		live = 15 &^ (1 << corner)
	}
	half := v.Chan == ChanFloat && v.Bits == 16
	var tv [4][4]uint32
	for k := range raw {
		tv[k] = v.convert(raw[k])
	}
	var o [4]uint32
	for ch := 0; ch < 4; ch++ {
		o[ch] = texBlend([]uint32{tv[0][ch], tv[1][ch], tv[2][ch], tv[3][ch]}, w[:], live, half)
	}
	return o
}
