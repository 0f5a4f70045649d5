package rttest

import (
	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tensormap"
)

// TensorMapCase is one tensor map description for comparing encoders: a
// tiled or an im2col map (one of Tiled and Im2col is set).
type TensorMapCase struct {
	Name   string
	Tiled  *tensormap.Tiled
	Im2col *tensormap.Im2col
	// Invalid marks a description that breaks a documented rule: tensormap
	// refuses it, and so must the driver.
	Invalid bool
}

// TensorMapCases are tensor map descriptions that vary each field of a
// tiled and an im2col map in turn, from base (1 KiB-aligned) on, and
// descriptions that break one rule each. rt/cgo's GPU tests record what the
// driver makes of them; rt/soft's tests compare its encoder with that.
func TensorMapCases(base rt.DevPtr) []TensorMapCase {
	addr := uint64(base)
	var cs []TensorMapCase
	tiled := func(name string, t tensormap.Tiled) {
		cs = append(cs, TensorMapCase{Name: name, Tiled: &t})
	}
	bad := func(name string, t tensormap.Tiled) {
		cs = append(cs, TensorMapCase{Name: name, Tiled: &t, Invalid: true})
	}
	// A row-major 32×64 float matrix, boxes of 8×32: field11.cu's tmaTile.
	f32 := func() tensormap.Tiled {
		return tensormap.Tiled{DataType: tensormap.Float32, Addr: addr, Dims: []uint64{64, 32}, Strides: []uint64{256},
			Box: []uint32{32, 8}, ElementStrides: []uint32{1, 1}}
	}
	tiled("base", f32())
	for dt := tensormap.Uint8; dt <= tensormap.Packed16U6Align16B; dt++ {
		t := f32()
		t.DataType, t.Strides, t.Box = dt, []uint64{1024}, []uint32{16, 8}
		if dt.Size() == 0 { // packed: 16 values a unit
			t.Dims, t.Box = []uint64{256, 32}, []uint32{64, 8}
		}
		name := "type/" + dt.String()
		if dt.Size() == 0 {
			name = "probe/" + name // sm_100's: does an H100's driver take them?
		}
		tiled(name, t)
	}
	{
		t := f32()
		t.Dims, t.Strides, t.Box, t.ElementStrides = []uint64{1000}, nil, []uint32{64}, nil
		tiled("rank/1", t)
		dims := []uint64{64, 33, 5, 6, 7}
		strides := []uint64{256, 256 * 33, 256 * 33 * 5, 256 * 33 * 5 * 6}
		box := []uint32{32, 8, 2, 3, 4}
		for r := 3; r <= 5; r++ {
			t := f32()
			t.Dims, t.Strides, t.Box, t.ElementStrides = dims[:r], strides[:r-1], box[:r], nil
			tiled("rank/"+string(rune('0'+r)), t)
		}
	}
	{
		t := f32()
		t.Dims, t.Strides, t.Box = []uint64{1 << 20, 3}, []uint64{1 << 22}, []uint32{32, 2}
		tiled("dims/2^20", t)
		t = f32()
		t.DataType, t.Dims, t.Strides, t.Box = tensormap.Uint8, []uint64{1 << 32, 1}, []uint64{1 << 32}, []uint32{16, 1}
		tiled("dims/2^32", t)
		// Bit 21 of the control word: the tensor's size around 128 KiB,
		// and a small tensor spread over megabytes.
		t = f32()
		t.Dims, t.Strides, t.Box, t.ElementStrides = []uint64{32768}, nil, []uint32{32}, nil
		tiled("size/128KiB", t)
		t.Dims = []uint64{32764}
		tiled("size/128KiB-16", t)
		t = f32()
		t.Dims, t.Strides, t.Box = []uint64{64, 512}, []uint64{256}, []uint32{32, 8}
		tiled("size/64x512", t)
		t.Dims = []uint64{64, 511}
		tiled("size/64x511", t)
		t = f32()
		t.Dims, t.Strides, t.Box = []uint64{4, 4}, []uint64{1 << 20}, []uint32{4, 4}
		tiled("size/sparse", t)
	}
	{
		t := f32()
		t.Strides = []uint64{272}
		tiled("stride/272", t)
		t = f32()
		t.DataType, t.Dims, t.Strides, t.Box = tensormap.Uint8, []uint64{16, 4}, []uint64{1<<39 + 16}, []uint32{16, 4}
		tiled("stride/2^39+16", t)
		t = f32()
		t.DataType, t.Dims, t.Box, t.ElementStrides = tensormap.Uint8, []uint64{16, 2, 2, 2, 2}, []uint32{16, 2, 2, 2, 2}, nil
		t.Strides = []uint64{1<<36 + 16, 2<<36 + 32, 3<<36 + 48, 4<<36 + 64}
		tiled("stride/high nibbles", t)
		t = f32()
		t.Strides = []uint64{128} // a row's 256 bytes overlap the next
		tiled("probe/stride below row", t)
	}
	{
		t := f32()
		t.Box = []uint32{16, 1}
		tiled("box/16x1", t)
		t = f32()
		t.DataType, t.Dims, t.Strides, t.Box = tensormap.Uint8, []uint64{512, 512}, []uint64{512}, []uint32{256, 256}
		tiled("box/256x256", t)
		t = f32()
		t.Dims, t.Box = []uint64{16, 4}, []uint32{32, 8}
		tiled("probe/box beyond dims", t)
	}
	{
		t := f32()
		t.ElementStrides = []uint32{1, 2}
		tiled("estr/1,2", t)
		t.ElementStrides = []uint32{1, 3}
		tiled("estr/1,3", t)
		t.ElementStrides = []uint32{2, 1}
		tiled("estr/2,1", t)
		t.ElementStrides = []uint32{1, 8}
		tiled("estr/1,8", t)
		t = f32()
		t.Dims, t.Box = []uint64{64, 33, 6, 8, 10}, []uint32{32, 8, 6, 8, 10}
		t.Strides = []uint64{256, 256 * 33, 256 * 33 * 6, 256 * 33 * 6 * 8}
		t.ElementStrides = []uint32{1, 2, 3, 4, 5}
		tiled("estr/rank5", t)
		t.ElementStrides = []uint32{1, 1, 1, 1, 8}
		tiled("estr/8 in dim 4", t)
	}
	{
		h := tensormap.Tiled{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{8, 16, 16}, Strides: []uint64{16, 256},
			Box: []uint32{8, 8, 4}, Interleave: tensormap.Interleave16B}
		tiled("interleave/16B", h)
		h = tensormap.Tiled{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{16, 16, 16}, Strides: []uint64{32, 512},
			Box: []uint32{16, 8, 4}, Interleave: tensormap.Interleave32B, Swizzle: tensormap.Swizzle32B}
		tiled("interleave/32B", h)
		h.Swizzle = tensormap.SwizzleNone
		tiled("probe/interleave 32B unswizzled", h)
		h.ElementStrides = []uint32{2, 1, 1}
		h.Swizzle = tensormap.Swizzle32B
		tiled("interleave/32B estr 2,1,1", h)
	}
	for sw := tensormap.Swizzle32B; sw <= tensormap.Swizzle128BAtom64B; sw++ {
		t := f32()
		t.Swizzle, t.Box = sw, []uint32{[...]uint32{0, 8, 16, 32, 32, 32, 32}[sw], 8}
		name := "swizzle/" + swizzleName(sw)
		if sw > tensormap.Swizzle128B {
			name = "probe/" + name
		}
		tiled(name, t)
	}
	{
		t := f32()
		t.Swizzle, t.Box = tensormap.Swizzle128B, []uint32{16, 8}
		tiled("swizzle/128B box 64B", t)
		for l2 := tensormap.L2Promotion64B; l2 <= tensormap.L2Promotion256B; l2++ {
			t := f32()
			t.L2Promotion = l2
			tiled("l2/"+[...]string{"", "64B", "128B", "256B"}[l2], t)
		}
		t = f32()
		t.OOBFill = tensormap.OOBFillNaNRequestZeroFMA
		tiled("oob/nan", t)
		t = f32()
		t.Addr = addr + 16
		tiled("addr/+16", t)
		t.Addr = addr + 0x12340
		tiled("addr/+0x12340", t)
		tiled("all", tensormap.Tiled{DataType: tensormap.Float16, Addr: addr + 0x100, Dims: []uint64{32, 40, 3}, Strides: []uint64{64, 2560},
			Box: []uint32{32, 4, 2}, ElementStrides: []uint32{1, 2, 1}, Swizzle: tensormap.Swizzle64B, L2Promotion: tensormap.L2Promotion256B,
			OOBFill: tensormap.OOBFillNaNRequestZeroFMA})
	}

	im2col := func(name string, t tensormap.Im2col) {
		cs = append(cs, TensorMapCase{Name: "im2col/" + name, Im2col: &t})
	}
	// NHWC half images: 2 of 16×16 pixels, 64 channels.
	nhwc := func() tensormap.Im2col {
		return tensormap.Im2col{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{64, 16, 16, 2}, Strides: []uint64{128, 2048, 32768},
			LowerCorner: []int32{-1, -1}, UpperCorner: []int32{-1, -1}, ChannelsPerPixel: 64, PixelsPerColumn: 128}
	}
	im2col("base", nhwc())
	{
		t := nhwc()
		t.LowerCorner = []int32{-2, -3}
		im2col("lower -2,-3", t)
		t = nhwc()
		t.UpperCorner = []int32{2, 3}
		im2col("upper 2,3", t)
		t = nhwc()
		t.LowerCorner, t.UpperCorner = []int32{-128, 5}, []int32{127, -7}
		im2col("corners at the limits", t)
		t = nhwc()
		t.ChannelsPerPixel = 8
		im2col("channels 8", t)
		t = nhwc()
		t.PixelsPerColumn = 1024
		im2col("pixels 1024", t)
		t = nhwc()
		t.PixelsPerColumn = 3
		im2col("pixels 3", t)
		t = nhwc()
		t.ElementStrides = []uint32{1, 2, 3, 1}
		im2col("estr 1,2,3,1", t)
		t = nhwc()
		t.Swizzle = tensormap.Swizzle128B
		im2col("swizzle 128B", t)
		t = nhwc()
		t.L2Promotion, t.OOBFill = tensormap.L2Promotion128B, tensormap.OOBFillNaNRequestZeroFMA
		im2col("l2 128B, oob nan", t)
		im2col("rank 3", tensormap.Im2col{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{64, 32, 2}, Strides: []uint64{128, 4096},
			LowerCorner: []int32{-5}, UpperCorner: []int32{7}, ChannelsPerPixel: 64, PixelsPerColumn: 32})
		im2col("rank 3 wide corners", tensormap.Im2col{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{64, 32, 2}, Strides: []uint64{128, 4096},
			LowerCorner: []int32{-32768}, UpperCorner: []int32{32767}, ChannelsPerPixel: 64, PixelsPerColumn: 32})
		rank5 := tensormap.Im2col{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{64, 8, 8, 8, 2}, Strides: []uint64{128, 1024, 8192, 65536},
			LowerCorner: []int32{-1, -2, -3}, UpperCorner: []int32{1, 2, 3}, ChannelsPerPixel: 64, PixelsPerColumn: 64}
		im2col("rank 5", rank5)
		rank5.Dims, rank5.Strides = []uint64{64, 40, 40, 40, 2}, []uint64{128, 128 * 40, 128 * 40 * 40, 128 * 40 * 40 * 40}
		rank5.LowerCorner, rank5.UpperCorner = []int32{-16, 15, -5}, []int32{15, -16, 7}
		im2col("rank 5 corners at the limits", rank5)
		// The corners leave the dimension's size - lower + upper pixels:
		// 1, and none.
		one, none := nhwc(), nhwc()
		one.LowerCorner, one.UpperCorner = []int32{0, -1}, []int32{-15, -1}
		none.LowerCorner, none.UpperCorner = []int32{0, -1}, []int32{-16, -1}
		cs = append(cs, TensorMapCase{Name: "probe/im2col one pixel wide", Im2col: &one},
			TensorMapCase{Name: "probe/im2col no pixel wide", Im2col: &none, Invalid: true})
		im2col("f32", tensormap.Im2col{DataType: tensormap.Float32, Addr: addr, Dims: []uint64{32, 16, 16, 2}, Strides: []uint64{128, 2048, 32768},
			LowerCorner: []int32{0, 0}, UpperCorner: []int32{0, 0}, ChannelsPerPixel: 32, PixelsPerColumn: 256})
	}

	// One broken rule each.
	{
		t := f32()
		t.Dims, t.Strides, t.Box, t.ElementStrides = nil, nil, nil, nil
		bad("bad/rank 0", t)
		t = f32()
		t.Dims, t.Box, t.ElementStrides = []uint64{2, 2, 2, 2, 2, 2}, []uint32{4, 2, 2, 2, 2, 2}, nil
		t.Strides = []uint64{16, 32, 64, 128, 256}
		bad("bad/rank 6", t)
		t = f32()
		t.Addr = addr + 8
		bad("bad/address 8-aligned", t)
		t = f32()
		t.Dims = []uint64{0, 32}
		bad("bad/dim 0", t)
		t = f32()
		t.Dims = []uint64{64, 1<<32 + 1}
		bad("bad/dim 2^32+1", t)
		t = f32()
		t.Strides = []uint64{264}
		bad("bad/stride 264", t)
		t = f32()
		t.DataType, t.Dims, t.Box = tensormap.Uint8, []uint64{16, 2}, []uint32{16, 2}
		t.Strides = []uint64{1 << 40}
		bad("bad/stride 2^40", t)
		t = f32()
		t.Box = []uint32{32, 0}
		bad("bad/box 0", t)
		t = f32()
		t.DataType, t.Dims, t.Strides, t.Box = tensormap.Uint8, []uint64{512, 512}, []uint64{512}, []uint32{16, 257}
		bad("bad/box 257", t)
		t = f32()
		t.Box = []uint32{2, 8}
		bad("bad/box 8 bytes wide", t)
		t = f32()
		t.ElementStrides = []uint32{1, 0}
		bad("bad/element stride 0", t)
		t = f32()
		t.ElementStrides = []uint32{1, 9}
		bad("bad/element stride 9", t)
		t = f32()
		t.Swizzle = tensormap.Swizzle32B
		bad("bad/box wider than swizzle", t)
		t = f32()
		t.Interleave = tensormap.Interleave16B
		bad("bad/interleave at rank 2", t)
		t = tensormap.Tiled{DataType: tensormap.Float16, Addr: addr + 16, Dims: []uint64{16, 16, 16}, Strides: []uint64{32, 512},
			Box: []uint32{16, 8, 4}, Interleave: tensormap.Interleave32B, Swizzle: tensormap.Swizzle32B}
		bad("bad/interleave 32B at 16-aligned address", t)
		t = f32()
		t.DataType, t.OOBFill = tensormap.Int32, tensormap.OOBFillNaNRequestZeroFMA
		bad("bad/NaN fill of int32", t)
		t = f32()
		t.DataType = 16
		bad("bad/type 16", t)
		t = f32()
		t.Swizzle = 7
		bad("bad/swizzle 7", t)
		t = f32()
		t.L2Promotion = 4
		bad("bad/L2 promotion 4", t)
		t = f32()
		t.OOBFill = 2
		bad("bad/OOB fill 2", t)
	}
	{
		t := nhwc()
		t.ChannelsPerPixel = 0
		cs = append(cs, TensorMapCase{Name: "bad/im2col channels 0", Im2col: &t, Invalid: true})
		t = nhwc()
		t.PixelsPerColumn = 1025
		cs = append(cs, TensorMapCase{Name: "bad/im2col pixels 1025", Im2col: &t, Invalid: true})
		t = nhwc()
		t.LowerCorner = []int32{-129, 0}
		cs = append(cs, TensorMapCase{Name: "bad/im2col corner -129 at rank 4", Im2col: &t, Invalid: true})
		t = nhwc()
		t.Dims, t.Strides, t.LowerCorner, t.UpperCorner = []uint64{64, 16}, []uint64{128}, nil, nil
		cs = append(cs, TensorMapCase{Name: "bad/im2col rank 2", Im2col: &t, Invalid: true})
		// The H100's driver refuses corners that leave a dimension (8
		// pixels) no pixel: 8 - -3 + -16 < 1.
		t = tensormap.Im2col{DataType: tensormap.Float16, Addr: addr, Dims: []uint64{64, 8, 8, 8, 2}, Strides: []uint64{128, 1024, 8192, 65536},
			LowerCorner: []int32{-1, -2, -3}, UpperCorner: []int32{1, 2, -16}, ChannelsPerPixel: 64, PixelsPerColumn: 64}
		cs = append(cs, TensorMapCase{Name: "bad/im2col corners leave no pixel", Im2col: &t, Invalid: true})
	}
	return cs
}

func swizzleName(s tensormap.Swizzle) string {
	return [...]string{"none", "32B", "64B", "128B", "128B atom 32B", "128B atom 32B flip 8B", "128B atom 64B"}[s]
}
