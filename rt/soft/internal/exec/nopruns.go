package exec

// nopRuns sets each unguarded opNop's aux to the length of the run of
// unguarded opNops it starts, so that exec steps over the run at once: a
// kernel's loads of parameters and specials, cvta and folded adds leave
// such runs, often half of a short kernel's code. It runs on the finished
// code (after instrument and the yield rewrites, which turn some opNops
// into other ops).
func nopRuns(p *Program) {
	k := int32(0)
	for i := len(p.code) - 1; i >= 0; i-- {
		in := &p.code[i]
		if in.op != opNop || in.gp >= 0 {
			k = 0
			continue
		}
		k++
		in.aux = k
	}
}
