package cubin_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// dump is what the tests read back from a cuobjdump -elf listing
// (testdata/*.elf.txt): the parts that describe kernels and variables.
type dump struct {
	header   map[string]string         // "type", "ABI", "sm", "toolkit", "flags"
	sections map[int]dumpSection       // by index
	byName   map[string]dumpSection    // by name
	syms     []dumpSym                 // index order, including the null symbol
	infos    map[string][]dumpAttr     // .nv.info* section -> records in order
	data     map[string][]byte         // section -> bytes from the hex word dump
	smem     map[string]int            // .text.<kernel> -> "smem=" value
	order    []string                  // dumped sections in order
	raw      map[string][]string       // section -> its body lines
	regs     map[string]map[string]int // global .nv.info: attribute -> function -> value
}

type dumpSection struct {
	index      int
	off, size  uint64
	typ, name  string
	info, link uint64
}

type dumpSym struct {
	index              int
	value, size        uint64
	info, other, shndx uint64
	name               string
}

type dumpAttr struct {
	name, format string
	value        string // the Value: text, continuation lines joined by a tab
}

// hexOrDec parses cuobjdump's numbers: "0x1f" is hex, "0" and "18" are
// decimal.
func hexOrDec(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(s, "0x")], 64)
	if err != nil {
		t.Fatalf("dump: bad number %q", s)
	}
	return v
}

func parseDump(t *testing.T, text []byte) *dump {
	t.Helper()
	d := &dump{
		header: map[string]string{}, sections: map[int]dumpSection{}, byName: map[string]dumpSection{},
		infos: map[string][]dumpAttr{}, data: map[string][]byte{}, smem: map[string]int{},
		raw: map[string][]string{}, regs: map[string]map[string]int{},
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	// Header line and section table.
	i := 0
	for ; i < len(lines); i++ {
		if rest, ok := strings.CutPrefix(lines[i], "64-bit ELF: "); ok {
			for _, kv := range strings.Split(rest, ", ") {
				k, v, _ := strings.Cut(kv, "=")
				d.header[k] = v
			}
		}
		if strings.HasPrefix(lines[i], "Index Offset") {
			i++
			break
		}
	}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		f := strings.Fields(lines[i])
		if len(f) != 10 {
			t.Fatalf("dump: section line %q", lines[i])
		}
		h := func(s string) uint64 { v, _ := strconv.ParseUint(s, 16, 64); return v }
		s := dumpSection{index: int(h(f[0])), off: h(f[1]), size: h(f[2]), typ: f[5], link: h(f[7]), info: h(f[8]), name: f[9]}
		d.sections[s.index] = s
		d.byName[s.name] = s
	}
	if len(d.sections) == 0 {
		t.Fatal("dump: no section table")
	}
	// Section bodies: a line naming a section (".nv.info.k1" or
	// ".section .symtab") starts one.
	cur := ""
	for ; i < len(lines); i++ {
		l := lines[i]
		name := strings.TrimPrefix(l, ".section ")
		if f := strings.Fields(name); len(f) > 0 && strings.HasPrefix(l, ".") {
			if _, ok := d.byName[f[0]]; ok {
				cur = f[0]
				d.order = append(d.order, cur)
				continue
			}
		}
		if cur != "" {
			d.raw[cur] = append(d.raw[cur], l)
		}
	}
	for name, body := range d.raw {
		switch {
		case name == ".symtab":
			for _, l := range body {
				f := strings.Fields(l)
				if len(f) < 7 || f[0] == "index" {
					continue
				}
				d.syms = append(d.syms, dumpSym{
					index: int(hexOrDec(t, f[0])), value: hexOrDec(t, f[1]), size: hexOrDec(t, f[2]),
					info: hexOrDec(t, f[3]), other: hexOrDec(t, f[4]), shndx: hexOrDec(t, f[5]), name: f[6],
				})
			}
		case strings.HasPrefix(name, ".nv.info") || name == ".nv.compat":
			d.infos[name] = parseDumpAttrs(body)
		case strings.HasPrefix(name, ".text."):
			for _, l := range body {
				if _, v, ok := strings.Cut(l, "smem="); ok {
					d.smem[name], _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
		default:
			if b := dataWords(body); b != nil {
				d.data[name] = b
			}
		}
	}
	// Global .nv.info: "function: k1(0x1a)\tregister count: 18".
	for _, a := range d.infos[".nv.info"] {
		fn, rest, ok := strings.Cut(strings.TrimPrefix(a.value, "function: "), "\t")
		if !ok {
			continue
		}
		fn = fn[:strings.LastIndexByte(fn, '(')]
		_, v, _ := strings.Cut(rest, ": ")
		if d.regs[a.name] == nil {
			d.regs[a.name] = map[string]int{}
		}
		d.regs[a.name][fn] = int(hexOrDec(t, strings.TrimSpace(v)))
	}
	return d
}

// dataWords decodes a section dump made only of "0x%08x" words, or
// returns nil.
func dataWords(body []string) []byte {
	var b []byte
	for _, l := range body {
		for _, w := range strings.Fields(l) {
			if len(w) != 10 || !strings.HasPrefix(w, "0x") {
				return nil
			}
			v, err := strconv.ParseUint(w[2:], 16, 32)
			if err != nil {
				return nil
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	return b
}

func parseDumpAttrs(body []string) []dumpAttr {
	var out []dumpAttr
	for _, l := range body {
		switch {
		case strings.HasPrefix(l, "\t<0x"):
			out = append(out, dumpAttr{})
		case len(out) == 0:
		case strings.HasPrefix(l, "\tAttribute:\t"):
			out[len(out)-1].name = strings.TrimPrefix(l, "\tAttribute:\t")
		case strings.HasPrefix(l, "\tFormat:\t"):
			out[len(out)-1].format = strings.TrimPrefix(l, "\tFormat:\t")
		case strings.HasPrefix(l, "\tValue:\t"):
			out[len(out)-1].value = strings.TrimPrefix(l, "\tValue:\t")
		case strings.HasPrefix(l, "\t\t"):
			out[len(out)-1].value += "\t" + strings.TrimSpace(l)
		}
	}
	return out
}

// field returns the value after "key :" in a KPARAM_INFO value such as
// "Index : 0x0\tOrdinal : 0x3\tOffset  : 0x28\tSize    : 0x8".
func field(t *testing.T, value, key string) uint64 {
	t.Helper()
	for _, part := range strings.Split(value, "\t") {
		k, v, ok := strings.Cut(part, ":")
		if ok && strings.TrimSpace(k) == key {
			return hexOrDec(t, strings.TrimSpace(v))
		}
	}
	t.Fatalf("dump: no %q in %q", key, value)
	return 0
}

// words splits a value like "0x100 0x1 0x1 " into numbers.
func words(t *testing.T, value string) []uint64 {
	t.Helper()
	var out []uint64
	for _, w := range strings.Fields(value) {
		out = append(out, hexOrDec(t, w))
	}
	return out
}
