package exec

import (
	"github.com/cugen/cugen/parse/ptx"
	"sync"
)

// The device the executor models: the H100 (sm_90) of the special
// registers and the shared-memory layout.
const (
	NumSMs         = 132     // %nsmid
	ReservedShared = 1 << 10 // shared memory reserved by the system per block, before the kernel's
)

// Program is one kernel decoded for execution: the entry's code followed by
// the code of every device function it can call. Programs are immutable
// after LibraryLoad and shared by every context and launch.
type Program struct {
	Module *Module
	Name   string
	Func   *ptx.Func

	code []inst
	src  []*ptx.Instr // the PTX instruction each pc came from

	NSlots int // register slots (slot 0 is the junk sink, slot 1 the frame base)

	// CTAs of finished launches, whose buffers newCTA reuses: at most a
	// launch's workers' worth, held as long as the program (a sync.Pool
	// would keep them, and through them the program, past its last use).
	ctaMu   sync.Mutex
	ctaFree []*cta
	npreds  int // predicates (index 0 is the junk sink)

	consts   []slotVal // slots holding immediates, filled once per register file
	syms     []slotVal // slots holding module-variable addresses (val = var index), per launch
	specials []slotVal // slots holding special registers (val = special kind), per CTA
	// ctaSpecials are the specials that change from CTA to CTA (%ctaid,
	// the cluster ids), which start refreshes.
	ctaSpecials []slotVal
	kparams     []kparam // slots holding scalar kernel parameters, per launch
	// hoisted are the comparisons and integer ops of fixed slots that
	// newCTA runs, in order, on each warp after filling those slots
	// (decoder.specialise).
	hoisted []inst
	vec     []uint32   // vector operand register lists
	tc      tensorOps  // tensor-core instructions' forms (tensor_decode.go)
	bulks   []bulkOp   // bulk and tensor copies (bulk.go), by opBulk's aux
	texs    []texInstr // texture and surface instructions (texinstr.go), by opTex's aux
	chains  []ldChain  // ld-ld-fma chains (chain.go), by opLdChain's aux
	folds   []memFold  // instructions as they were before address folding (fuse_mem.go)
	foldOps []foldOp   // folded accesses' address arithmetic, by opLdGAdd's (opStGAdd's, opAtomSAdd's) aux
	unis    []uniDef   // definitions of uniform candidates (uniform.go), by opUniDef's aux2

	// laneCmps are the comparisons of a lane index with a uniform value
	// (lanecmp.go), by opCmpLane's aux2.
	laneCmps []laneCmp
	// shflAdds are the fused shfl.down-add.f32 steps (shfladd.go), by
	// opShflAdd's aux2.
	shflAdds []shflAdd

	fptrs     map[uint64]int32 // indirect call targets: function address → funcs index
	protoSigs []string         // indirect call sites' parameter layouts, by opCallInd's aux2
	brx       []int32          // brx.idx target lists' pcs, opBrx's [aux, aux+e)

	ParamSize    int    // size of the kernel's parameter block
	SharedSize   uint32 // static shared memory, not counting the reserved KB before it
	DynSharedOff uint32 // offset of dynamic (.extern) shared memory in the CTA's window
	frame        uint32 // the kernel's own frame (locals and outgoing call area)
	Stack        uint32 // static local-memory need per thread (deepest call chain)
	recursive    bool   // some reachable function is recursive: the stack may grow
	funcs        []*funcInfo
	ReqNTID      []int
	MaxNTID      []int
	UsesVars     bool
	usesPrintf   bool
	usesAlloca   bool // alloca, stacksave or stackrestore: warps keep dynamic stacks (alloca.go)
}

// kparam is a scalar kernel parameter preloaded into a register slot: an
// ld.param of it becomes a register move.
type kparam struct {
	slot uint32
	off  uint32
	size uint16
	sext uint16 // register width in bytes to sign-extend to, or 0
}

type slotVal struct {
	slot uint32 // register offset (slot*32)
	val  uint64
}

// funcInfo describes a callable device function's frame. A frame is
// [return values | parameters | local variables | outgoing call area]; a
// callee's frame starts at its caller's outgoing area, so parameters written
// there by st.param are where the callee's ld.param reads them.
type funcInfo struct {
	f        *ptx.Func
	name     string
	builtin  int // builtin id, or 0
	entry    int32
	retOff   []uint32
	parOff   []uint32
	argSize  uint32 // return values + parameters
	out      uint32 // offset of the outgoing area
	frame    uint32 // whole frame
	locals   map[string]uint32
	calls    []*funcInfo
	scc      int  // strongly connected component id
	rec      bool // in a call cycle: calls into it save its SCC's registers
	slots    []uint32
	preds    []int32
	saveRegs []uint32 // registers and predicates saved around a recursive call
	savePred []int32
	sig      string // parameter layout (indirect.go)
	indirect bool   // makes indirect calls
}

// Special register kinds (specials' val and opSpecial's aux).
const (
	spTidX = iota
	spTidY
	spTidZ
	spNtidX
	spNtidY
	spNtidZ
	spCtaidX
	spCtaidY
	spCtaidZ
	spNctaidX
	spNctaidY
	spNctaidZ
	spLaneid
	spWarpid
	spNwarpid
	spSmid
	spNsmid
	spGridid
	spLanemaskEq
	spLanemaskLt
	spLanemaskLe
	spLanemaskGt
	spLanemaskGe
	spDynSmem
	spTotalSmem
	spZero // %envreg*, %reserved_smem_offset_{begin,0,1}, …
	spAggrSmem
	spResSmemEnd
	spResSmemCap
	spClock
	spClock64
	spGlobaltimer
	spGlobaltimerLo
	spGlobaltimerHi
	spOne

	// Clusters (cluster.go): per CTA, then per launch.
	spClCtaidX
	spClCtaidY
	spClCtaidZ
	spClIDX
	spClIDY
	spClIDZ
	spClRank
	spClNctaidX
	spClNctaidY
	spClNctaidZ
	spClNRank
	spNClIDX
	spNClIDY
	spNClIDZ
	spClExplicit
	spEnvreg1 // the grid-sync workspace's address, high and low half (coop.go)
	spEnvreg2
)

var specialNames = map[string][]int{
	"%tid": {spTidX, spTidY, spTidZ}, "%ntid": {spNtidX, spNtidY, spNtidZ},
	"%ctaid": {spCtaidX, spCtaidY, spCtaidZ}, "%nctaid": {spNctaidX, spNctaidY, spNctaidZ},
	"%laneid": {spLaneid}, "%warpid": {spWarpid}, "%nwarpid": {spNwarpid},
	"%smid": {spSmid}, "%nsmid": {spNsmid}, "%gridid": {spGridid},
	"%lanemask_eq": {spLanemaskEq}, "%lanemask_lt": {spLanemaskLt}, "%lanemask_le": {spLanemaskLe},
	"%lanemask_gt": {spLanemaskGt}, "%lanemask_ge": {spLanemaskGe},
	"%dynamic_smem_size": {spDynSmem}, "%total_smem_size": {spTotalSmem},
	"%clock": {spClock}, "%clock64": {spClock64}, "%globaltimer": {spGlobaltimer},
	"%globaltimer_lo": {spGlobaltimerLo}, "%globaltimer_hi": {spGlobaltimerHi},
	"%cluster_ctaid": {spClCtaidX, spClCtaidY, spClCtaidZ}, "%cluster_nctaid": {spClNctaidX, spClNctaidY, spClNctaidZ},
	"%cluster_ctarank": {spClRank}, "%cluster_nctarank": {spClNRank}, "%is_explicit_cluster": {spClExplicit},
	"%clusterid": {spClIDX, spClIDY, spClIDZ}, "%nclusterid": {spNClIDX, spNClIDY, spNClIDZ},
	"%aggr_smem_size": {spAggrSmem}, "%current_graph_exec": {spZero},
	"%reserved_smem_offset_begin": {spZero}, "%reserved_smem_offset_end": {spResSmemEnd},
	"%reserved_smem_offset_cap": {spResSmemCap}, "%reserved_smem_offset_0": {spZero},
	"%reserved_smem_offset_1": {spZero},
}

func isDynamicSpecial(k int) bool { return k >= spClock && k <= spGlobaltimerHi }

// Builtin device functions the executor provides itself.
const (
	biNone = iota
	biVprintf
	biAssertfail
	biGraphSetConditional
	biMalloc
	biFree
	biCDPGetParameterBuffer
	biCDPLaunch
	biCDPStreamCreate
	biCDPStreamDestroy
	biCDPMalloc
	biCDPFree
	biCDPMemcpyAsync
	biCDPGetLastError
	biCDPPeekAtLastError
	biCDPGetErrorString
)

var builtins = map[string]int{"vprintf": biVprintf, "__assertfail": biAssertfail,
	"cudaGraphSetConditional": biGraphSetConditional, "malloc": biMalloc, "free": biFree,
	"__cudaCDP2GetParameterBufferV2": biCDPGetParameterBuffer, "__cudaCDP2LaunchDeviceV2": biCDPLaunch,
	"__cudaCDP2StreamCreateWithFlags": biCDPStreamCreate, "__cudaCDP2StreamDestroy": biCDPStreamDestroy,
	"__cudaCDP2Malloc": biCDPMalloc, "__cudaCDP2Free": biCDPFree, "__cudaCDP2MemcpyAsync": biCDPMemcpyAsync,
	"__cudaCDP2GetLastError": biCDPGetLastError, "__cudaCDP2PeekAtLastError": biCDPPeekAtLastError,
	"__cudaCDP2GetErrorString": biCDPGetErrorString}
