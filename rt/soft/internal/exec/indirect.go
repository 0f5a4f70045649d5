// Function addresses and indirect calls. Every function of a library has
// an address (mov.u64 %rd, f; an initializer naming f), which is not
// memory: funcWin plus the library's serial number and the function's
// index. A call through a register ("call (r), %rd, (args), proto;")
// reaches any function of the library whose address is taken, so those
// are decoded into every program with an indirect call; at run time each
// lane's target is looked up, lanes with different targets diverge, and a
// target that is not such a function, or whose parameters are laid out
// differently from the call's prototype, stops the launch with an error.

package exec

import (
	"fmt"
	"math/bits"
	"strings"
	"sync/atomic"

	"github.com/cugen/cugen/parse/ptx"
)

const funcWin = 0x4000_0000_0000 // function addresses (not memory)

var libSerial atomic.Uint64

// indexFuncs numbers the library's functions and finds those whose
// address is taken.
func (lib *Module) indexFuncs() {
	lib.serial = libSerial.Add(1) & 0xffffff
	lib.FuncAddr = map[string]uint64{}
	lib.byAddr = map[uint64]*ptx.Func{}
	for i, f := range lib.PTX.Funcs {
		if _, ok := lib.FuncAddr[f.Name]; ok {
			continue
		}
		a := funcWin + lib.serial<<24 + uint64(i+1)*16
		lib.FuncAddr[f.Name] = a
		lib.byAddr[a] = lib.funcs[f.Name]
	}
	taken := map[string]bool{}
	for _, f := range lib.PTX.Funcs {
		if f.Body != nil {
			lib.markTaken(f.Body, taken)
		}
	}
	for _, v := range lib.PTX.Vars {
		if v.Init == nil {
			continue
		}
		if d, err := v.InitData(); err == nil && d != nil {
			for _, a := range d.Addrs {
				if lib.funcs[a.Sym] != nil {
					taken[a.Sym] = true
				}
			}
		}
	}
	lib.setTaken(taken)
}

// markTaken adds to taken the functions whose address b takes (an operand
// other than a call's target).
func (lib *Module) markTaken(b *ptx.Block, taken map[string]bool) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			lib.markTaken(s, taken)
		case *ptx.Instr:
			if s.Op == "call" {
				continue
			}
			for _, o := range s.Operands {
				if sy, ok := o.(*ptx.Sym); ok && lib.funcs[sy.Name] != nil {
					taken[sy.Name] = true
				}
			}
		}
	}
}

// setTaken sets lib.taken: the device functions named in taken, in source
// order.
func (lib *Module) setTaken(taken map[string]bool) {
	lib.taken = nil
	for _, f := range lib.PTX.Funcs {
		if taken[f.Name] && !f.Entry && lib.funcs[f.Name] == f {
			lib.taken = append(lib.taken, f)
		}
	}
}

// layoutSig describes where a call puts its return values and arguments,
// which a callee must agree with.
func layoutSig(rets, params []*ptx.Param) string {
	var b strings.Builder
	offs, end := LayoutParams(rets, 0)
	for i, p := range rets {
		n, _ := ParamSize(p)
		fmt.Fprintf(&b, "r%d:%d,", offs[i], n)
	}
	offs, _ = LayoutParams(params, align(end, 8))
	for i, p := range params {
		n, _ := ParamSize(p)
		fmt.Fprintf(&b, "p%d:%d,", offs[i], n)
	}
	return b.String()
}

// callParts splits a call's operands; target is a *ptx.Sym for a direct
// call and a *ptx.Reg for an indirect one, whose prototype (or
// .calltargets list) proto names.
func callParts(in *ptx.Instr) (rets []ptx.Operand, target ptx.Operand, args []ptx.Operand, proto string) {
	ops := in.Operands
	i := 0
	if i < len(ops) {
		if l, ok := ops[i].(*ptx.List); ok {
			rets = l.Elems
			i++
		}
	}
	if i < len(ops) {
		target = ops[i]
		i++
	}
	if i < len(ops) {
		if l, ok := ops[i].(*ptx.List); ok {
			args = l.Elems
			i++
		}
	}
	if _, ok := target.(*ptx.Reg); ok && i < len(ops) {
		if s, ok := ops[i].(*ptx.Sym); ok {
			proto = s.Name
		}
	}
	return
}

// addIndirectTargets makes every function whose address the library
// takes a possible callee of every function with an indirect call.
func (dc *decoder) addIndirectTargets() {
	var callers []*funcInfo
	for i := 0; i < len(dc.order); i++ {
		if dc.order[i].indirect {
			callers = append(callers, dc.order[i])
		}
	}
	if len(callers) == 0 {
		return
	}
	for _, f := range dc.lib.taken {
		known := dc.infos[f] != nil
		ci := dc.info(f, f.Pos)
		if !known {
			dc.walkCalls(ci.f)
		}
	}
	// Targets may have indirect calls of their own.
	for _, fi := range dc.order {
		if !fi.indirect {
			continue
		}
		for _, f := range dc.lib.taken {
			ci := dc.infos[f]
			if !containsFI(fi.calls, ci) {
				fi.calls = append(fi.calls, ci)
			}
		}
	}
	dc.p.fptrs = map[uint64]int32{}
	for _, f := range dc.lib.taken {
		ci := dc.infos[f]
		for i, g := range dc.p.funcs {
			if g == ci {
				dc.p.fptrs[dc.lib.FuncAddr[f.Name]] = int32(i)
			}
		}
	}
}

func containsFI(l []*funcInfo, x *funcInfo) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

// indirectCall decodes a call through a register.
func (dc *decoder) indirectCall(in *ptx.Instr, sc *scope, x inst) {
	_, target, _, proto := callParts(in)
	cp := dc.protos[proto]
	if cp == nil {
		dc.failIn(in, "indirect call without a .callprototype (%q)", proto)
	}
	x.op, x.a, x.imm = opCallInd, dc.src(in, sc, target, ptx.U64), int64(dc.fi.out)
	x.aux2 = int32(len(dc.p.protoSigs))
	dc.p.protoSigs = append(dc.p.protoSigs, layoutSig(cp.Returns, cp.Params))
	dc.emit(in, x)
}

// callInd calls, for each lane of m, the function its register names.
// target is the callees' entry when all lanes call the same one, else -1.
func (c *cta) callInd(w *warp, in *inst, m uint32, pc int32) (target int32, ok bool) {
	a := lanes(w.r, in.a)
	target = -1
	uniform := true
	for rest := m; rest != 0; {
		l := bits.TrailingZeros32(rest)
		addr := a[l]
		var same uint32
		for mm := rest; mm != 0; mm &= mm - 1 {
			k := bits.TrailingZeros32(mm)
			if a[k] == addr {
				same |= 1 << k
			}
		}
		rest &^= same
		idx, found := c.p.fptrs[addr]
		if !found {
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: pc, addr: addr,
				msg: sprintf("indirect call to %#x, which is not the address of a function of this module that the kernel can call", addr)}
			return -1, false
		}
		fi := c.p.funcs[idx]
		if fi.sig != c.p.protoSigs[in.aux2] {
			c.fault = &fault{kind: fInvalid, warp: w.id, lane: l, pc: pc, addr: addr,
				msg: sprintf("indirect call to %s, whose parameters do not match the call's .callprototype", fi.name)}
			return -1, false
		}
		if !c.call(w, same, in, fi, pc) {
			return -1, false
		}
		w.setPCs(same, fi.entry)
		if target < 0 {
			target = fi.entry
		} else if target != fi.entry {
			uniform = false
		}
	}
	if !uniform {
		target = -1
	}
	return target, true
}
