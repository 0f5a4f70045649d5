package cubin_test

import (
	"encoding/binary"
	"fmt"
)

// A small CUDA ELF writer, so that tests and benchmarks can have cubins of
// any size and with attributes nvcc did not put in the corpus (REQNTID,
// MAX_CLUSTER_RANK, EXTERNS, unknown ids). It writes what nvcc 13 writes
// for a whole-program sm_90 cubin, minus code and debug sections.

type synthSection struct {
	name       string
	typ, flags uint64
	link, info uint32
	entsize    uint64
	data       []byte
	nobitsSize uint64 // for NOBITS sections
	align      uint64
	isNobits   bool
	nameOff    uint32
	fileOff    uint64
}

type synthKernel struct {
	name     string
	params   [][2]uint16 // offset, size per ordinal
	v2       bool
	code     int      // code bytes
	records  []byte   // extra raw .nv.info.<name> records
	externs  []string // names of undefined symbols, EXTERNS
	regCount uint32
}

var le = binary.LittleEndian

func rec(format, id byte, v uint16, payload ...byte) []byte {
	b := []byte{format, id, byte(v), byte(v >> 8)}
	return append(b, payload...)
}

func sval(id byte, words ...uint32) []byte {
	var p []byte
	for _, w := range words {
		p = le.AppendUint32(p, w)
	}
	return rec(4, id, uint16(len(p)), p...)
}

// buildCubin writes a cubin holding the given kernels and a __device__
// int "gv" = 7 in .nv.global.init plus an uninitialized "gz" in .nv.global.
func buildCubin(kernels []synthKernel) []byte {
	secs := []*synthSection{
		{},                          // 0 null
		{name: ".shstrtab", typ: 3}, // 1
		{name: ".strtab", typ: 3},   // 2
		{name: ".symtab", typ: 2, link: 2, entsize: 24, align: 8}, // 3
		{name: ".nv.info", typ: 0x70000000, link: 3, align: 4},    // 4
		{name: ".note.nv.cuinfo", typ: 7, align: 4,
			data: append(append(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 12), 8), 1000), "NVIDIA Corp\x00"...), 2, 0, 90, 0, 130, 0, 0, 0)}, // 5
		{name: ".nv.global.init", typ: 1, flags: 3, align: 4, data: []byte{7, 0, 0, 0}}, // 6
		{name: ".nv.global", typ: 8, flags: 3, align: 4, isNobits: true, nobitsSize: 4}, // 7
	}
	strtab := []byte{0}
	str := func(s string) uint32 {
		off := uint32(len(strtab))
		strtab = append(strtab, s...)
		strtab = append(strtab, 0)
		return off
	}
	type sym struct {
		name        uint32
		info, other byte
		shndx       uint16
		value, size uint64
	}
	syms := []sym{{}}
	// Local symbols first: the variables and the parameter-bank sections.
	syms = append(syms, sym{name: str("gv"), info: 0x01, shndx: 6, size: 4})
	syms = append(syms, sym{name: str("gz"), info: 0x01, shndx: 7, size: 4})
	var textIdx, bankSym []int
	for _, k := range kernels {
		psize := uint16(0)
		if n := len(k.params); n > 0 {
			psize = k.params[n-1][0] + k.params[n-1][1]
		}
		textIdx = append(textIdx, len(secs))
		secs = append(secs, &synthSection{name: ".text." + k.name, typ: 1, flags: 6, link: 3, align: 128, data: make([]byte, k.code)})
		secs = append(secs, &synthSection{name: ".nv.shared." + k.name, typ: 8, flags: 0x43, align: 16, isNobits: true, nobitsSize: 0x400})
		secs = append(secs, &synthSection{name: ".nv.constant0." + k.name, typ: 1, flags: 0x42, align: 4, data: make([]byte, 0x210+int(psize))})
		bankSym = append(bankSym, len(syms))
		syms = append(syms, sym{info: 0x03, shndx: uint16(len(secs) - 1)})
	}
	firstGlobal := len(syms)
	kernelSym := map[string]int{}
	for i, k := range kernels {
		kernelSym[k.name] = len(syms)
		syms = append(syms, sym{name: str(k.name), info: 0x12, other: 0x10, shndx: uint16(textIdx[i]), size: uint64(k.code)})
	}
	externSym := map[string]int{}
	for _, k := range kernels {
		for _, e := range k.externs {
			if _, ok := externSym[e]; !ok {
				externSym[e] = len(syms)
				syms = append(syms, sym{name: str(e), info: 0x10})
			}
		}
	}
	// Per-kernel .nv.info, records in nvcc's order (params descending).
	var global []byte
	for i, k := range kernels {
		var d []byte
		d = append(d, sval(0x37, 130)...)
		for o := len(k.params) - 1; o >= 0; o-- {
			p := k.params[o]
			if k.v2 {
				d = append(d, sval(0x45, 0, uint32(o)|uint32(p[0])<<16, uint32(p[1]))...)
			} else {
				d = append(d, sval(0x17, 0, uint32(o)|uint32(p[0])<<16, 0x1f000|uint32(p[1])<<18)...)
			}
		}
		d = append(d, rec(3, 0x1b, 0xff)...)
		d = append(d, k.records...)
		if len(k.externs) > 0 {
			var idx []uint32
			for _, e := range k.externs {
				idx = append(idx, uint32(externSym[e]))
			}
			d = append(d, sval(0x0f, idx...)...)
		}
		psize := uint32(0)
		if n := len(k.params); n > 0 {
			psize = uint32(k.params[n-1][0]) + uint32(k.params[n-1][1])
		}
		d = append(d, rec(3, 0x19, uint16(psize))...)
		d = append(d, sval(0x0a, uint32(bankSym[i]), psize<<16|0x210)...)
		secs = append(secs, &synthSection{name: ".nv.info." + k.name, typ: 0x70000000, flags: 0x40, link: 3, info: uint32(textIdx[i]), align: 4, data: d})
		global = append(global, sval(0x2f, uint32(kernelSym[k.name]), k.regCount)...)
		global = append(global, sval(0x11, uint32(kernelSym[k.name]), 0)...)
	}
	secs[4].data = global
	for _, s := range syms {
		var b [24]byte
		le.PutUint32(b[0:], s.name)
		b[4], b[5] = s.info, s.other
		le.PutUint16(b[6:], s.shndx)
		le.PutUint64(b[8:], s.value)
		le.PutUint64(b[16:], s.size)
		secs[3].data = append(secs[3].data, b[:]...)
	}
	secs[3].info = uint32(firstGlobal)
	secs[2].data = strtab
	shstr := []byte{0}
	for _, s := range secs[1:] {
		s.nameOff = uint32(len(shstr))
		shstr = append(shstr, s.name...)
		shstr = append(shstr, 0)
	}
	secs[1].data = shstr

	out := make([]byte, 64)
	for _, s := range secs[1:] {
		if a := max(s.align, 1); uint64(len(out))%a != 0 {
			out = append(out, make([]byte, a-uint64(len(out))%a)...)
		}
		s.fileOff = uint64(len(out))
		if !s.isNobits {
			out = append(out, s.data...)
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	for _, s := range secs {
		var b [64]byte
		le.PutUint32(b[0:], s.nameOff)
		le.PutUint32(b[4:], uint32(s.typ))
		le.PutUint64(b[8:], s.flags)
		le.PutUint64(b[24:], s.fileOff)
		size := uint64(len(s.data))
		if s.isNobits {
			size = s.nobitsSize
		}
		le.PutUint64(b[32:], size)
		le.PutUint32(b[40:], s.link)
		le.PutUint32(b[44:], s.info)
		le.PutUint64(b[48:], s.align)
		le.PutUint64(b[56:], s.entsize)
		out = append(out, b[:]...)
	}
	copy(out, "\x7fELF\x02\x01\x01\x41\x08")
	le.PutUint16(out[0x10:], 2)   // ET_EXEC
	le.PutUint16(out[0x12:], 190) // EM_CUDA
	le.PutUint32(out[0x14:], 1)
	le.PutUint64(out[0x28:], shoff)
	le.PutUint32(out[0x30:], 0x06005a04)
	le.PutUint16(out[0x34:], 64)
	le.PutUint16(out[0x36:], 56)
	le.PutUint16(out[0x3a:], 64)
	le.PutUint16(out[0x3c:], uint16(len(secs)))
	le.PutUint16(out[0x3e:], 1)
	return out
}

// largeCubin has n kernels of 8 parameters and 2 KiB of code each.
func largeCubin(n int) []byte {
	ks := make([]synthKernel, n)
	for i := range ks {
		ks[i] = synthKernel{name: fmt.Sprintf("_Z6kernel%dPfS_S_iiffd", i), code: 2048, regCount: uint32(16 + i%64)}
		off := uint16(0)
		for _, sz := range []uint16{8, 8, 8, 4, 4, 4, 4, 8} {
			off = (off + sz - 1) &^ (sz - 1)
			ks[i].params = append(ks[i].params, [2]uint16{off, sz})
			off += sz
		}
		ks[i].v2 = i%7 == 0
	}
	return buildCubin(ks)
}
