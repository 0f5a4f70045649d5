package rttest

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// textures checks rt.Texturer: arrays of every format, channel count and
// shape created, described and copied to and from host and device memory
// (whole and in part, synchronously and in stream order), texture objects
// over arrays, linear and pitched memory and surface objects over arrays
// created, read back and destroyed, and the errors of bad descriptions.
func (s *suite) textures(t *testing.T) {
	if _, ok := s.d.(rt.Texturer); !ok {
		t.Skipf("backend %s has no CUDA arrays, textures or surfaces (rt.Texturer)", s.d.Name())
	}
	t.Run("Arrays", s.texArrays)
	t.Run("ArrayCopies", s.texArrayCopies)
	t.Run("Objects", s.texObjects)
	t.Run("Errors", s.texErrors)
}

// texFormats is every format with the channel counts it takes.
var texFormats = []struct {
	f  rt.ArrayFormat
	ch []int
}{
	{rt.FormatUint8, []int{1, 2, 4}}, {rt.FormatUint16, []int{1, 2, 4}}, {rt.FormatUint32, []int{1, 2, 4}},
	{rt.FormatInt8, []int{1, 2, 4}}, {rt.FormatInt16, []int{1, 2, 4}}, {rt.FormatInt32, []int{1, 2, 4}},
	{rt.FormatHalf, []int{1, 2, 4}}, {rt.FormatFloat, []int{1, 2, 4}},
	{rt.FormatUnorm8X1, []int{1}}, {rt.FormatUnorm8X2, []int{2}}, {rt.FormatUnorm8X4, []int{4}},
	{rt.FormatUnorm16X1, []int{1}}, {rt.FormatUnorm16X2, []int{2}}, {rt.FormatUnorm16X4, []int{4}},
	{rt.FormatSnorm8X1, []int{1}}, {rt.FormatSnorm8X2, []int{2}}, {rt.FormatSnorm8X4, []int{4}},
	{rt.FormatSnorm16X1, []int{1}}, {rt.FormatSnorm16X2, []int{2}}, {rt.FormatSnorm16X4, []int{4}},
}

// texShapes is one array of each kind.
var texShapes = []struct {
	name                 string
	width, height, depth int
	flags                uint32
}{
	{"1d", 13, 0, 0, 0},
	{"2d", 13, 5, 0, 0},
	{"3d", 13, 5, 3, 0},
	{"1d-layered", 13, 0, 3, rt.ArrayLayered},
	{"2d-layered", 13, 5, 3, rt.ArrayLayered},
	{"cube", 8, 8, 6, rt.ArrayCubemap},
	{"cube-layered", 8, 8, 12, rt.ArrayCubemap | rt.ArrayLayered},
}

// pattern is n bytes that differ from position to position and seed to seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ seed
	}
	return b
}

// texArrays creates one array of every format, channel count and shape,
// reads its description back, and round-trips host bytes through it.
func (s *suite) texArrays(t *testing.T) {
	tx := s.d.(rt.Texturer)
	for _, f := range texFormats {
		for _, ch := range f.ch {
			for _, sh := range texShapes {
				flags := sh.flags
				if !f.f.Normalized() {
					flags |= rt.ArraySurfaceLoadStore
				}
				desc := rt.ArrayDesc{Width: sh.width, Height: sh.height, Depth: sh.depth, Format: f.f, Channels: ch, Flags: flags}
				name := fmt.Sprintf("%v×%d %s", f.f, ch, sh.name)
				a, err := texobj.NewArray(s.a, desc)
				if err != nil {
					t.Errorf("%s: NewArray: %v", name, err)
					continue
				}
				got, err := tx.ArrayDescriptor(s.a.Handle(), a.Handle())
				if err != nil {
					t.Errorf("%s: ArrayDescriptor: %v", name, err)
				} else if got != desc {
					t.Errorf("%s: ArrayDescriptor is %+v, want %+v", name, got, desc)
				}
				in := pattern(int(desc.Bytes()), byte(ch))
				out := make([]byte, len(in))
				if err := texobj.CopyToArray(a, in); err != nil {
					t.Errorf("%s: CopyToArray: %v", name, err)
				} else if err := texobj.CopyFromArray(a, out); err != nil {
					t.Errorf("%s: CopyFromArray: %v", name, err)
				} else if !bytes.Equal(in, out) {
					t.Errorf("%s: the bytes read back differ from the bytes written", name)
				}
				if err := a.Destroy(); err != nil {
					t.Errorf("%s: Destroy: %v", name, err)
				}
			}
		}
	}
}

// texArrayCopies copies between arrays, device memory and host memory,
// whole and in part, synchronously and on a stream.
func (s *suite) texArrayCopies(t *testing.T) {
	desc := rt.ArrayDesc{Width: 37, Height: 9, Depth: 4, Format: rt.FormatFloat, Channels: 2, Flags: rt.ArrayLayered}
	a, err := texobj.NewArray(s.a, desc)
	must(t, err)
	defer a.Destroy()
	b, err := texobj.NewArray(s.a, desc)
	must(t, err)
	defer b.Destroy()
	row, rows, slices := desc.Extent()
	in := pattern(int(desc.Bytes()), 3)
	must(t, texobj.CopyToArray(a, in))

	// Array to pitched device memory (rows 512 bytes apart, slices 11 rows
	// apart), to the second array, and back to the host.
	const pitch, height = 512, 11
	dev, err := rt.Alloc[byte](s.a, pitch*height*int(slices))
	must(t, err)
	defer dev.Free()
	must(t, dev.Fill(0xee))
	must(t, a.CopyToDevice(rt.DeviceSide(dev.Ptr.Addr(), pitch, height)))
	flat, err := dev.ToHost()
	must(t, err)
	for z := uint64(0); z < slices; z++ {
		for y := uint64(0); y < rows; y++ {
			got := flat[z*pitch*height+y*pitch:][:row]
			if want := in[(z*rows+y)*row:][:row]; !bytes.Equal(got, want) {
				t.Fatalf("array to pitched device memory: slice %d row %d differs", z, y)
			}
		}
	}
	if flat[row] != 0xee || flat[rows*pitch] != 0xee {
		t.Errorf("the copy to device memory wrote outside its rows")
	}
	must(t, b.CopyFromDevice(rt.DeviceSide(dev.Ptr.Addr(), pitch, height)))
	out := make([]byte, len(in))
	must(t, texobj.CopyFromArray(b, out))
	if !bytes.Equal(in, out) {
		t.Errorf("array → device → array: the bytes differ")
	}

	// Part of the array: 3 elements × 2 rows × 2 layers from (5, 4, 1).
	const ex, ey, ez, w, h, dep = 5, 4, 1, 3, 2, 2
	elem := uint64(desc.ElemSize())
	part := make([]byte, w*elem*h*dep)
	c := rt.Copy3D{Src: rt.CopySide{Array: a.Handle(), X: ex * elem, Y: ey, Z: ez},
		Dst:        rt.CopySide{Host: unsafe.Pointer(&part[0]), Pitch: w * elem, Height: h},
		WidthBytes: w * elem, Height: h, Depth: dep}
	must(t, c.Run(s.a))
	for z := uint64(0); z < dep; z++ {
		for y := uint64(0); y < h; y++ {
			got := part[(z*h+y)*w*elem:][:w*elem]
			want := in[((ez+z)*rows+ey+y)*row+ex*elem:][:w*elem]
			if !bytes.Equal(got, want) {
				t.Errorf("partial copy: layer %d row %d is %x, want %x", z, y, got, want)
			}
		}
	}

	// Stream order: host → array → host on a stream, then synchronize.
	st, err := s.a.NewStream()
	must(t, err)
	defer st.Destroy()
	in2 := pattern(len(in), 9)
	out2 := make([]byte, len(in))
	must(t, texobj.CopyToArrayAsync(st, b, in2))
	must(t, b.CopyToDeviceAsync(st, rt.DeviceSide(dev.Ptr.Addr(), pitch, height)))
	must(t, a.CopyFromDeviceAsync(st, rt.DeviceSide(dev.Ptr.Addr(), pitch, height)))
	must(t, texobj.CopyFromArrayAsync(st, a, out2))
	must(t, st.Synchronize())
	if !bytes.Equal(in2, out2) {
		t.Errorf("stream-ordered host → array → device → array → host: the bytes differ")
	}
}

// texObjects creates texture objects over an array, linear and pitched
// memory and a surface over an array, reads their descriptions back and
// destroys them.
func (s *suite) texObjects(t *testing.T) {
	tx := s.d.(rt.Texturer)
	arr, err := texobj.NewArray(s.a, rt.ArrayDesc{Width: 16, Height: 8, Format: rt.FormatUint8, Channels: 4, Flags: rt.ArraySurfaceLoadStore})
	must(t, err)
	defer arr.Destroy()
	lin, err := rt.Alloc[float32](s.a, 1000)
	must(t, err)
	defer lin.Free()
	pit, err := rt.AllocPitched[float32](s.a, 37, 9)
	must(t, err)
	defer pit.Free()

	td := rt.TextureDesc{AddressMode: [3]rt.AddressMode{rt.AddressClamp, rt.AddressWrap, rt.AddressBorder},
		BorderColor: [4]float32{1, 0, 0.5, 0.25}}.Read(rt.ReadElementType).Normalized(true)
	tdLinear := rt.TextureDesc{Filter: rt.FilterLinear, AddressMode: [3]rt.AddressMode{rt.AddressMirror, rt.AddressClamp, rt.AddressClamp}}.
		Read(rt.ReadNormalizedFloat).Normalized(true)
	tdPoint := rt.TextureDesc{AddressMode: [3]rt.AddressMode{rt.AddressClamp, rt.AddressClamp, rt.AddressClamp}}
	cases := []struct {
		name string
		r    rt.ResourceDesc
		d    rt.TextureDesc
	}{
		{"array", texobj.ArrayResource(arr), td},
		{"array-srgb", texobj.ArrayResource(arr), tdLinear.SRGB(true)},
		{"linear", texobj.LinearResource(lin.Ptr.Addr(), rt.FormatFloat, 1, lin.Len), tdPoint},
		{"pitched", texobj.PitchedResource(pit, rt.FormatFloat, 1), tdLinear},
	}
	// Live objects have distinct handles (a destroyed one's may be reused:
	// the H100's driver does).
	live := map[rt.TextureObject]string{}
	var texs []*texobj.Texture
	defer func() {
		for _, tex := range texs {
			if err := tex.Destroy(); err != nil {
				t.Errorf("Destroy: %v", err)
			}
		}
	}()
	for _, c := range cases {
		tex, err := texobj.NewTexture(s.a, c.r, c.d)
		if err != nil {
			t.Errorf("%s: NewTexture: %v", c.name, err)
			continue
		}
		texs = append(texs, tex)
		if other, dup := live[tex.Object]; tex.Object == 0 || dup {
			t.Errorf("%s: texture object %#x is 0 or %s's", c.name, uint64(tex.Object), other)
		}
		live[tex.Object] = c.name
		r, d, err := tex.Desc()
		if err != nil {
			t.Errorf("%s: Desc: %v", c.name, err)
		} else {
			if r != c.r {
				t.Errorf("%s: resource read back %+v, want %+v", c.name, r, c.r)
			}
			// The border color is not compared: the H100's driver (CUDA
			// 13.0) read back zeros for the u8×4 array's [1 0 0.5 0.25].
			want := c.d
			want.BorderColor = d.BorderColor
			if d != want {
				t.Errorf("%s: texture description read back %+v, want %+v", c.name, d, c.d)
			}
		}
	}

	surf, err := texobj.NewSurface(arr)
	must(t, err)
	if surf.Object == 0 {
		t.Errorf("surface object 0")
	}
	r, err := tx.SurfObjectDesc(s.a.Handle(), surf.Object)
	if err != nil {
		t.Errorf("SurfObjectDesc: %v", err)
	} else if r != texobj.ArrayResource(arr) {
		t.Errorf("surface resource read back %+v, want %+v", r, texobj.ArrayResource(arr))
	}
	must(t, surf.Destroy())
}

// texErrors checks the errors of bad descriptions, through rt's helpers and
// the driver's own calls.
func (s *suite) texErrors(t *testing.T) {
	tx := s.d.(rt.Texturer)
	ctx := s.a.Handle()
	for _, c := range []struct {
		what string
		d    rt.ArrayDesc
	}{
		{"3 channels", rt.ArrayDesc{Width: 4, Height: 4, Format: rt.FormatFloat, Channels: 3}},
		{"width 0", rt.ArrayDesc{Width: 0, Height: 4, Format: rt.FormatFloat, Channels: 1}},
		{"no format", rt.ArrayDesc{Width: 4, Format: 0x7, Channels: 1}},
		{"unorm8x4 with 2 channels", rt.ArrayDesc{Width: 4, Format: rt.FormatUnorm8X4, Channels: 2}},
		{"non-square cube", rt.ArrayDesc{Width: 4, Height: 5, Depth: 6, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArrayCubemap}},
		{"cube of 5 faces", rt.ArrayDesc{Width: 4, Height: 4, Depth: 5, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArrayCubemap}},
		{"1-D array too wide", rt.ArrayDesc{Width: rt.MaxArray1D + 1, Format: rt.FormatUint8, Channels: 1}},
	} {
		_, err := tx.ArrayCreate(ctx, &c.d)
		wantCode(t, "ArrayCreate, "+c.what, err, rt.ErrInvalidValue)
		_, err = texobj.NewArray(s.a, c.d)
		wantCode(t, "NewArray, "+c.what, err, rt.ErrInvalidValue)
	}

	plain, err := texobj.NewArray(s.a, rt.ArrayDesc{Width: 8, Height: 8, Format: rt.FormatFloat, Channels: 1})
	must(t, err)
	defer plain.Destroy()
	_, err = texobj.NewSurface(plain)
	wantCode(t, "NewSurface over an array without ArraySurfaceLoadStore", err, rt.ErrInvalidValue)
	// The driver itself makes one (measured: the H100, CUDA 13.0): only rt
	// refuses it.
	r := texobj.ArrayResource(plain)
	if so, err := tx.SurfObjectCreate(ctx, &r); err != nil {
		t.Errorf("SurfObjectCreate over an array without ArraySurfaceLoadStore: %v, want a surface as CUDA 13.0 makes", err)
	} else {
		must(t, tx.SurfObjectDestroy(ctx, so))
	}

	// Copies that do not fit.
	wrong := make([]float32, 8*8-1)
	wantCode(t, "CopyToArray of too few elements", texobj.CopyToArray(plain, wrong), rt.ErrInvalidValue)
	host := make([]float32, 8*8)
	c := rt.Copy3D{Src: rt.CopySide{Host: unsafe.Pointer(&host[0]), Pitch: 32, Height: 8},
		Dst: rt.CopySide{Array: plain.Handle(), X: 4, Y: 0}, WidthBytes: 32, Height: 8, Depth: 1}
	wantCode(t, "Memcpy3D past an array's row", tx.Memcpy3D(ctx, &c, 0, false), rt.ErrInvalidValue)
	c.Dst.X, c.Dst.Y = 0, 1
	wantCode(t, "Memcpy3D past an array's last row", tx.Memcpy3D(ctx, &c, 0, false), rt.ErrInvalidValue)
	c.Dst.Y = 0
	c.Src.Device = 0x1000
	wantCode(t, "Copy3D with two kinds of source", c.Run(s.a), rt.ErrInvalidValue)

	// Texture descriptions.
	buf, err := rt.Alloc[float32](s.a, 1024)
	must(t, err)
	defer buf.Free()
	for _, c := range []struct {
		what string
		r    rt.ResourceDesc
		d    rt.TextureDesc
	}{
		{"filter mode 7", texobj.ArrayResource(plain), rt.TextureDesc{Filter: 7}},
		{"address mode 9", texobj.ArrayResource(plain), rt.TextureDesc{AddressMode: [3]rt.AddressMode{9, 0, 0}}},
		{"misaligned linear memory", texobj.LinearResource(buf.Ptr.Addr()+4, rt.FormatFloat, 1, 100), rt.TextureDesc{}},
		{"linear memory of 3 channels", texobj.LinearResource(buf.Ptr.Addr(), rt.FormatFloat, 3, 100), rt.TextureDesc{}},
		{"pitch not a multiple of 32", rt.ResourceDesc{Kind: rt.ResourcePitch2D, Ptr: buf.Ptr.Addr(), Format: rt.FormatFloat,
			Channels: 1, Width: 10, Height: 10, Pitch: 48}, rt.TextureDesc{}},
		{"pitch less than a row", rt.ResourceDesc{Kind: rt.ResourcePitch2D, Ptr: buf.Ptr.Addr(), Format: rt.FormatFloat,
			Channels: 1, Width: 10, Height: 10, Pitch: 32}, rt.TextureDesc{}},
	} {
		_, err := texobj.NewTexture(s.a, c.r, c.d)
		wantCode(t, "NewTexture, "+c.what, err, rt.ErrInvalidValue)
		_, err = tx.TexObjectCreate(ctx, &c.r, &c.d)
		wantCode(t, "TexObjectCreate, "+c.what, err, rt.ErrInvalidValue)
	}
}
