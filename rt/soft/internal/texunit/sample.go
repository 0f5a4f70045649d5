// tex: a sample at a coordinate, point or linear, of every geometry and
// format (normalized and sRGB textures filter as the H100 does: see
// blend.go), and integer-coordinate fetches.

package texunit

import "math"

// Sample runs one tex instruction.
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
