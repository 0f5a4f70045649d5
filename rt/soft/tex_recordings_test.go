package soft

import (
	"strings"

	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/soft/internal/texunit"
	"github.com/klauspost/compress/zstd"
)

// The recordings of testdata/tex (see its NOTES.md): each record is a
// configuration, the texels it samples and the H100's answers.

type texRecord struct {
	hdr    []uint32 // rtype geom kind bits nch W H D L pitch addr0 addr1 addr2 filter readMode norm srgb border0..3 err form [seamless]
	texels []byte
	txq    []uint32
	coords [][4]uint32
	res    [][4]uint32
}

// raceSampled is r with every eighth of its samples under -race (the
// kernel replays' deterministic sample there; all of them in go test).
func (r texRecord) raceSampled() texRecord {
	k := softtest.Sample(8)
	r.coords, r.res = softtest.Strided(r.coords, k), softtest.Strided(r.res, k)
	return r
}

type surfRecord struct {
	tag    uint32   // surfRecLoad, surfRecStore, surfRecStoreP, surfRecRed or surfRecRed2
	st     bool     // a store or reduction record (values and an image after)
	hdr    []uint32 // geom kind bits nch W H D L form
	img    []byte
	suq    []uint32
	coords [][4]uint32
	res    [][4]uint32 // suld results or sust/sured values
	after  []byte      // sust, sured: the image after the stores
}

// Surface record tags.
const (
	surfRecLoad   = 0x444c5553 // 'SULD': suld.b
	surfRecStore  = 0x54535553 // 'SUST': sust.b
	surfRecStoreP = 0x50535553 // 'SUSP': sust.p (surf2-sustp.bin.zst)
	surfRecRed    = 0x44525553 // 'SURD': sured.b, sured.p (surf2-sured.bin.zst)
	surfRecRed2   = 0x32525553 // 'SUR2': sured, every type (testdata/tex/surf3.cu; not recorded yet)
)

type recReader struct {
	b   []byte
	err error
}

func (r *recReader) u32() uint32 {
	if len(r.b) < 4 {
		if r.err == nil {
			r.err = io.ErrUnexpectedEOF
		}
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *recReader) words(n uint32) []uint32 {
	if uint64(len(r.b)) < 4*uint64(n) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	w := make([]uint32, n)
	for i := range w {
		w[i] = r.u32()
	}
	return w
}

func (r *recReader) buf() []byte {
	n := r.u32()
	p := (n + 3) &^ 3
	if uint64(len(r.b)) < uint64(p) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[p:]
	return b
}

func (r *recReader) vecs(n uint32) [][4]uint32 {
	if uint64(len(r.b)) < 16*uint64(n) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	v := make([][4]uint32, n)
	for i := range v {
		for j := range 4 {
			v[i][j] = r.u32()
		}
	}
	return v
}

// readTexRecording reads a recording: zstd (.zst; the recordings repeat
// their coordinates across configurations, which zstd's window finds and
// gzip's does not) or gzip (.gz).
func readTexRecording(path string) ([]byte, error) {
	f, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".zst") {
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		b, err := d.DecodeAll(f, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return b, nil
	}
	z, err := gzip.NewReader(bytes.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return io.ReadAll(z)
}

// surfRecFiles are the surface recordings: surf.bin.zst: suld.b and sust.b
// (rec surf); surf2-*.bin.zst: sust.p and sured (rec tex2, targeted.inc);
// surf3.bin.zst: surf3.cu; surf4.bin.zst: surf3.cu redfmt (sured.p on
// twelve formats that are not 32-bit integers); surf5.bin.zst: surf3.cu
// redfmt 12-15 (sured.p on snorm) and redshort (sured.p on rows that are
// not a whole number of accesses); surf6.bin.zst: surf3.cu redtrap (the
// .trap accesses that fit and did not fault, form code 9) and redb
// (sured.b on such rows under .clamp and .zero).
var surfRecFiles = []string{"surf.bin.zst", "surf2-sustp.bin.zst", "surf2-sured.bin.zst", "surf3.bin.zst", "surf4.bin.zst", "surf5.bin.zst", "surf6.bin.zst"}

// loadTexRecords reads every recording of dir.
func loadTexRecords(dir string) ([]texRecord, []surfRecord, error) {
	// tex.bin.zst: the random sweep (rec tex); tex2-*.bin.zst: the targeted
	// probes (rec tex2, targeted.inc); then the surfaces.
	// (tex2-m, texRec6File, is round 6: tex_operands_test.go)
	names := []string{"tex.bin.zst", "tex2-a.bin.zst", "tex2-b.bin.zst", "tex2-c.bin.zst", "tex2-d.bin.zst", "tex2-e.bin.zst", "tex2-f.bin.zst", "tex2-g.bin.zst", "tex2-h.bin.zst", "tex2-i.bin.zst", "tex2-k.bin.zst", "tex2-l.bin.zst", "tex2-tplane.bin.zst", "tex2-sea4.bin.zst", "tex2-sea5.bin.zst", "tex2-sea6.bin.zst", texRec6File}
	return loadTexFiles(dir, append(names, surfRecFiles...)...)
}

// loadTexFiles reads the named recordings of dir.
func loadTexFiles(dir string, names ...string) ([]texRecord, []surfRecord, error) {
	var tr []texRecord
	var sr []surfRecord
	for _, name := range names {
		b, err := readTexRecording(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		r := &recReader{b: b}
		if r.u32() != 0x31584554 {
			return nil, nil, fmt.Errorf("%s: bad magic", name)
		}
	loop:
		for r.err == nil {
			switch tag := r.u32(); tag {
			case 0x444e4521:
				break loop
			case 0x43584554:
				var t texRecord
				t.hdr = r.words(r.u32())
				t.texels = r.buf()
				t.txq = r.words(r.u32())
				n := r.u32()
				t.coords = r.vecs(n)
				t.res = r.vecs(n)
				tr = append(tr, t)
			case surfRecLoad, surfRecStore, surfRecStoreP, surfRecRed, surfRecRed2:
				s := surfRecord{tag: tag, st: tag != surfRecLoad}
				s.hdr = r.words(r.u32())
				s.img = r.buf()
				if !s.st {
					s.suq = r.words(r.u32())
				}
				n := r.u32()
				s.coords = r.vecs(n)
				s.res = r.vecs(n)
				if s.st {
					s.after = r.buf()
				}
				sr = append(sr, s)
			default:
				return nil, nil, fmt.Errorf("%s: bad tag %#x at %d bytes from the end", name, tag, len(r.b))
			}
		}
		if r.err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, r.err)
		}
	}
	return tr, sr, nil
}

// texRecView builds the sampler's view of a recorded texture config.
func texRecView(t *texRecord) *texunit.View {
	h := t.hdr
	v := &texunit.View{
		Chan: int(h[2]), Bits: int(h[3]), NChan: int(h[4]),
		W: int(h[5]), H: int(h[6]), D: int(h[7]), Layers: int(h[8]), Pitch: int(h[9]),
		Addr:   [3]int{int(h[10]), int(h[11]), int(h[12])},
		Linear: h[13] != 0, ReadNorm: h[14] != 0, Norm: h[15] != 0, SRGB: h[16] != 0,
		Border: [4]uint32{h[17], h[18], h[19], h[20]},
		Data:   t.texels,
	}
	if len(h) > 23 {
		v.Seamless = h[23] != 0
	}
	switch h[0] {
	case 1:
		v.Res = texunit.ResLinear
	case 2:
		v.Res = texunit.ResPitch2D
		// the recording packs rows densely
		v.Pitch = 0
	default:
		v.Res = texunit.ResArray
	}
	v.Geom = int(h[1])
	return v
}

// texRecForm splits a recorded form number into the instruction it ran.
func texRecForm(form uint32) (op texunit.Op) {
	switch {
	case form == 100:
		return texunit.Op{Geom: texunit.Geom2D, Level: true}
	case form == 101: // tex.grad.2d on a texture without mipmaps
		return texunit.Op{Geom: texunit.Geom2D}
	case form == 102:
		return texunit.Op{Geom: texunit.GeomCube, Level: true}
	case form == 103, form == 105: // tex.2d with offsets (105: and a depth compare)
		return texunit.Op{Geom: texunit.Geom2D, Offs: true}
	case form == 104, form == 106: // tex.2d with a depth compare; with a residency predicate
		return texunit.Op{Geom: texunit.Geom2D}
	case form == 107: // tld4.r.2d with offsets
		return texunit.Op{Geom: texunit.Geom2D, Gather: true, Offs: true}
	case form >= 108 && form <= 111: // tld4.{r,g,b,a}.a2d
		return texunit.Op{Geom: texunit.GeomA2D, Gather: true, Comp: int(form - 108)}
	case form >= 112 && form <= 115: // tld4.{r,g,b,a}.cube
		return texunit.Op{Geom: texunit.GeomCube, Gather: true, Comp: int(form - 112)}
	case form >= 116 && form <= 120: // tex.grad.{3d,cube,a2d}, tex.level.acube, tex.grad.1d
		return texunit.Op{Geom: []int{texunit.Geom3D, texunit.GeomCube, texunit.GeomA2D, texunit.GeomACube, texunit.Geom1D}[form-116], Level: form == 119}
	case form >= 121 && form <= 135: // tex2-g (t_tex4): see texRecForm4
		return texRecForm4(form)
	case form >= 136 && form <= 155: // tex2-k (t_tex5): see texRecForm5
		return texRecForm5(form)
	case form >= 156 && form <= 232: // tex2-m (t_tex6): see texRecForm6
		return texRecForm6(form)
	case form >= 70:
		f := int(form - 70)
		return texunit.Op{Geom: texunit.Geom2D, Gather: true, Comp: f / 3, RType: f % 3}
	default:
		f := int(form)
		return texunit.Op{Geom: f / 10, IntCoords: f%10 >= 3, RType: f % 10 % 3}
	}
}

// texRecForm4 is texRecForm for round 4's forms 121-135 (genforms2.py).
func texRecForm4(form uint32) texunit.Op {
	switch form {
	case 121, 132: // tex.1d with offsets; with a depth compare
		return texunit.Op{Geom: texunit.Geom1D, Offs: form == 121}
	case 122: // tex.a1d with offsets
		return texunit.Op{Geom: texunit.GeomA1D, Offs: true}
	case 123, 130: // tex.a2d with offsets; with a depth compare
		return texunit.Op{Geom: texunit.GeomA2D, Offs: form == 123}
	case 124, 129: // tex.3d with offsets; with a residency predicate
		return texunit.Op{Geom: texunit.Geom3D, Offs: form == 124}
	case 125: // tex.2d.v4.f32.s32 with offsets
		return texunit.Op{Geom: texunit.Geom2D, IntCoords: true, Offs: true}
	case 126: // tex.level.2d with offsets
		return texunit.Op{Geom: texunit.Geom2D, Level: true, Offs: true}
	case 127: // tld4.r.a2d with offsets
		return texunit.Op{Geom: texunit.GeomA2D, Gather: true, Offs: true}
	case 128, 134: // tld4.r.2d with a residency predicate; with a depth compare
		return texunit.Op{Geom: texunit.Geom2D, Gather: true}
	case 131: // tex.cube with a depth compare
		return texunit.Op{Geom: texunit.GeomCube}
	case 133: // tld4.r.acube
		return texunit.Op{Geom: texunit.GeomACube, Gather: true}
	case 135: // tex.2d with offsets and a residency predicate
		return texunit.Op{Geom: texunit.Geom2D, Offs: true}
	}
	return texunit.Op{Geom: -1}
}

// texRecForm5 is texRecForm for round 5's forms 136-155 (genforms2.py's
// TEX5_CASES). 139 (tex.3d with a depth compare) is not an instruction:
// ptxas refused it, and the recorder ran without it (texRecRefused).
func texRecForm5(form uint32) texunit.Op {
	switch form {
	case 136, 137: // tex.1d with immediate offsets {-3}, {100}
		return texunit.Op{Geom: texunit.Geom1D, Offs: true}
	case 138: // tex.a1d with a depth compare
		return texunit.Op{Geom: texunit.GeomA1D}
	case 140: // tex.acube with a depth compare
		return texunit.Op{Geom: texunit.GeomACube}
	case 141, 153: // tld4.r.a2d with a depth compare; with a residency predicate
		return texunit.Op{Geom: texunit.GeomA2D, Gather: true}
	case 142: // tld4.r.cube with a depth compare
		return texunit.Op{Geom: texunit.GeomCube, Gather: true}
	case 143, 144, 145, 146: // tex.{1d,a1d,a2d,3d}.v4.f32.s32 with offsets
		return texunit.Op{Geom: []int{texunit.Geom1D, texunit.GeomA1D, texunit.GeomA2D, texunit.Geom3D}[form-143], IntCoords: true, Offs: true}
	case 147, 148, 149: // tex.level.{1d,a2d,3d} with offsets
		return texunit.Op{Geom: []int{texunit.Geom1D, texunit.GeomA2D, texunit.Geom3D}[form-147], Level: true, Offs: true}
	case 150: // tex.grad.2d with offsets
		return texunit.Op{Geom: texunit.Geom2D, Offs: true}
	case 151: // tex.a2d with a residency predicate
		return texunit.Op{Geom: texunit.GeomA2D}
	case 152: // tex.cube with a residency predicate
		return texunit.Op{Geom: texunit.GeomCube}
	case 154: // tex.1d with a residency predicate
		return texunit.Op{Geom: texunit.Geom1D}
	case 155: // tex.2d.v4.f32.s32 with a residency predicate
		return texunit.Op{Geom: texunit.Geom2D, IntCoords: true}
	}
	return texunit.Op{Geom: -1}
}

// texRecRefused says whether a recorded form is one ptxas refused, so the
// recorder ran a kernel without it (its results are not the H100's
// answers): 139, tex.3d with a depth compare ("Illegal modifier '.3d' for
// instruction 'tex'", probe5.txt of the round-5 run).
func texRecRefused(form uint32) bool { return form == 139 }

// texRecOperands completes a recorded form's op with the operands that
// targeted.inc's t_tex3, t_tex4 and t_tex5 passed: texel offsets from z
// and w (forms 103 and 107), z twice (105), the signed bytes of w
// (121-127, 135, 143-150) or immediates (136 {-3}, 137 {100}). Word w of
// forms 104, 105, 130-132, 138, 140-142 and z of 134 are depth-compare
// values, which the H100 ignores; z of 126 and 147-149 is tex.level's lod,
// of 150 tex.grad's gradients.
func texRecOperands(form uint32, op texunit.Op, co [4]uint32) texunit.Op {
	if f, ok := texForms6[form]; ok {
		// round 6: the signed bytes of w, as round 4's (the depth value
		// is w too, ignored; lods and gradients z or w)
		if f.offs {
			for d := range op.Off {
				op.Off[d] = int32(int8(co[3] >> (8 * d)))
			}
		}
		return op
	}
	switch form {
	case 103, 107:
		op.Off = [3]int32{int32(co[2]), int32(co[3])}
	case 105:
		op.Off = [3]int32{int32(co[2]), int32(co[2])}
	case 136:
		op.Off[0] = -3 // immediate
	case 137:
		op.Off[0] = 100 // immediate
	case 121, 122, 123, 124, 125, 126, 127, 135, 143, 144, 145, 146, 147, 148, 149, 150:
		// t_tex4: signed bytes of word w, x in bits 0-7, y 8-15, z 16-23
		for d := range op.Off {
			op.Off[d] = int32(int8(co[3] >> (8 * d)))
		}
	}
	return op
}

// texRecResidency says whether a recorded form stored tex's residency
// predicate (0 or 1) in result word w instead of channel a.
func texRecResidency(form uint32) bool {
	return form == 106 || form == 128 || form == 129 || form == 135 || form >= 151 && form <= 155 || texForms6[form].resid
}
