package contractgen

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
)

// Sources: hand-written PTX modules (one per kernel), inline PTX in CUDA C
// (asm.cu) and plain CUDA C (c.cu).
const (
	SrcHand = "hand"
	SrcAsm  = "asm"
	SrcC    = "c"
)

// Builds per source. O3 is nvcc's (and ptxas's) default optimisation; G is
// nvcc -G, or for hand-written PTX ".target …, debug" with a DWARF section
// assembled with ptxas -g; ftz is nvcc -ftz=true; nofma is nvcc -fmad=false;
// lineinfo is nvcc -lineinfo (optimised, with line tables).
var Builds = map[string][]string{
	SrcHand: {"O3", "G"},
	SrcAsm:  {"O3", "G", "lineinfo"},
	SrcC:    {"O3", "G", "ftz", "nofma", "lineinfo"},
}

// Paths: how the GPU got its machine code: the cubin ptxas built, or the
// driver's JIT compiling the PTX at load time.
const (
	PathCubin = "cubin"
	PathJIT   = "jit"
)

// Entry is one kernel of the corpus as it is launched.
type Entry struct {
	Src    string
	Kernel string // entry name
	Key    string // input key (Inputs)
	Type   Type
	NIn    int
	NOut   int
	Beta   bool // takes the scalar parameter beta, set to Beta
}

// Entries lists every kernel of every source.
func Entries() []Entry {
	var out []Entry
	for _, k := range Kernels() {
		out = append(out, Entry{SrcHand, k.Name(), k.Name(), k.Type, k.NumInputs(), k.NumOutputs(), k.UsesBeta()})
	}
	for _, k := range AsmKernels() {
		out = append(out, Entry{SrcAsm, k.AsmKernelName(), k.Name(), k.Type, k.NumInputs(), k.NumOutputs(), false})
	}
	for _, k := range CKernels() {
		out = append(out, Entry{SrcC, k.Name(), k.InputKey(), k.Type, k.NIn, k.NOut, k.Beta})
	}
	return out
}

// Params packs the kernel's parameters (in, out, n[, beta]) at their PTX
// offsets.
func (e Entry) Params(in, out uint64) []byte {
	p := make([]byte, 20, 32)
	binary.LittleEndian.PutUint64(p[0:], in)
	binary.LittleEndian.PutUint64(p[8:], out)
	binary.LittleEndian.PutUint32(p[16:], Threads)
	if e.Beta {
		if e.Type == F64 {
			p = binary.LittleEndian.AppendUint32(p, 0) // align to 8
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(Beta))
		} else {
			p = binary.LittleEndian.AppendUint32(p, math.Float32bits(Beta))
		}
	}
	return p
}

// PTXPath is where the PTX holding e for (target, build) lives under the
// corpus root: one file per hand-written kernel, one per module otherwise.
func (e Entry) PTXPath(target, build string) string {
	if e.Src == SrcHand {
		return path.Join("hand", target, build, e.Kernel+".ptx")
	}
	return path.Join("ptx", e.Src+"_"+target+"_"+build+".ptx")
}

// CubinPath is where ptxas's output for (target, build) lives.
func (e Entry) CubinPath(target, build string) string {
	if e.Src == SrcHand {
		return path.Join("cubin", "hand", target, build, e.Kernel+".cubin")
	}
	return path.Join("cubin", e.Src+"_"+target+"_"+build+".cubin")
}

// Record is one launch's outcome: the output bytes (little-endian, Threads
// × NOut values), or why there are none.
type Record struct {
	Src    string `json:"src"`
	Kernel string `json:"kernel"`
	Build  string `json:"build"`
	Path   string `json:"path"` // cubin, jit, or a backend's name for local runs
	Out    []byte `json:"out,omitempty"`
	Err    string `json:"err,omitempty"`
}

// WriteRecords writes records as JSON lines.
func WriteRecords(w io.Writer, recs []Record) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadRecords reads JSON lines written by WriteRecords.
func ReadRecords(r io.Reader) ([]Record, error) {
	var out []Record
	dec := json.NewDecoder(r)
	for line := 1; ; line++ {
		var rec Record
		if err := dec.Decode(&rec); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("record %d: %v", line, err)
		}
		out = append(out, rec)
	}
}

// Result is what testdata keeps of a kernel's recordings: each distinct
// output, with the (build/path) runs that produced it.
type Result struct {
	Src    string    `json:"src"`
	Kernel string    `json:"kernel"`
	Outs   []Outcome `json:"outs"`
}

// Outcome is one distinct output of a kernel.
type Outcome struct {
	Runs []string `json:"runs"` // "O3/cubin", "G/jit", …
	Out  string   `json:"out"`  // base64 of the output bytes
}

// Dedupe folds records into Results, dropping failed runs.
func Dedupe(recs []Record) []Result {
	type key struct{ src, kernel string }
	idx := map[key]int{}
	var out []Result
	for _, r := range recs {
		if r.Err != "" {
			continue
		}
		k := key{r.Src, r.Kernel}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Result{Src: r.Src, Kernel: r.Kernel})
		}
		enc := base64.StdEncoding.EncodeToString(r.Out)
		run := r.Build + "/" + r.Path
		found := false
		for j := range out[i].Outs {
			if out[i].Outs[j].Out == enc {
				out[i].Outs[j].Runs = append(out[i].Outs[j].Runs, run)
				found = true
			}
		}
		if !found {
			out[i].Outs = append(out[i].Outs, Outcome{Runs: []string{run}, Out: enc})
		}
	}
	for i := range out {
		for j := range out[i].Outs {
			sort.Strings(out[i].Outs[j].Runs)
		}
	}
	return out
}
