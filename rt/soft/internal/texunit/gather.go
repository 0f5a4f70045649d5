// tld4: the four texels a bilinear sample would blend, one component each,
// on 2-D, layered and cube-map textures (seamless ones across faces).

package texunit

var texGatherOrder = [4][2]int{{0, 1}, {1, 1}, {1, 0}, {0, 0}}

// gather runs tld4.2d: component comp of the four texels a bilinear
// sample at c would blend, counter-clockwise from the lower left: (i, j+1),
// (i+1, j+1), (i+1, j), (i, j). NaNs come back canonical and subnormal f32
// texels flushed to a zero of their sign; Infs, -0 and the rest as stored.
func (v *View) gather(comp int, c [4]uint32) [4]uint32 {
	return v.GatherOp(Op{Geom: Geom2D, Gather: true, Comp: comp}, c)
}

// GatherOp runs tld4 of any geometry: .2d (c: x, y), .a2d (c: layer, x,
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
