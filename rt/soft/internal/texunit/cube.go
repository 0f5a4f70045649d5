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

package texunit

import (
	"math"

	"github.com/cugen/cugen/rt/soft/internal/gpumath"
)

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

// CubeFaces are the face's (s, t) as signed axes: axis+1, negated if
// negative.
var CubeFaces = [6][2]int{{-3, -2}, {3, -2}, {1, 3}, {1, -3}, {1, -2}, {-1, -2}}

// CubeProject returns the face a direction hits and the face
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

// CubeNeighbour returns the texel (i, j) of face, 0 <= i, j < n or one
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
