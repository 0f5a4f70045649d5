package exec

import (
	"fmt"

	"github.com/cugen/cugen/parse/ptx"
)

// at is where an instruction is, for a fault or hazard report: its CUDA
// source line when the PTX carries line information (.file/.loc, as
// nvcc -lineinfo and clang -gline-tables-only write them), then its PTX
// line and opcode: "k.cu:9:12 (k.ptx:41:2, st.global.f32)", or
// "k.ptx:41:2 (st.global.f32)" without line information.
func at(in *ptx.Instr) string {
	if in.Src != nil && in.Src.Line > 0 {
		return fmt.Sprintf("%s (%s, %s)", in.Src, in.Pos, instName(in))
	}
	return fmt.Sprintf("%s (%s)", in.Pos, instName(in))
}
