package soft

import "github.com/cugen/cugen/parse/ptx"

func (dc *decoder) tensormapReplace(in *ptx.Instr, sc *scope, m modset, x inst) {
	dc.failIn(in, "tensormap.replace: todo")
}
