package rt

// The inputs and options of a link (Linker, in capabilities.go).

// LinkInputKind says what one link input is; the values are CUDA's
// CUjitInputType.
type LinkInputKind int32

const (
	LinkCubin   LinkInputKind = 0 // CU_JIT_INPUT_CUBIN: relocatable device code (nvcc -rdc -cubin)
	LinkPTX     LinkInputKind = 1 // CU_JIT_INPUT_PTX: compiled as relocatable code by the JIT
	LinkFatbin  LinkInputKind = 2 // CU_JIT_INPUT_FATBINARY
	LinkObject  LinkInputKind = 3 // CU_JIT_INPUT_OBJECT: host object with embedded relocatable device code
	LinkLibrary LinkInputKind = 4 // CU_JIT_INPUT_LIBRARY: archive of such objects (libcudadevrt.a…)
)

// LinkInput is one input of a link. Name is used in the linker's messages.
type LinkInput struct {
	Kind LinkInputKind
	Name string
	Data []byte
}

// LinkOptions are the options of one link. The zero value links for the
// device of the calling thread's current context with the JIT's defaults.
type LinkOptions struct {
	// Ctx is the context the link runs in; its device is the default
	// target. 0 means the calling thread's current context.
	Ctx CtxHandle
	// Target is the SM version to link for (e.g. 90 for sm_90,
	// CU_JIT_TARGET); 0 means Ctx's device.
	Target int
	// JIT steers the compilation of PTX inputs.
	JIT JITOptions

	// MaxRegisters and OptLevel are what LinkOptions had before JIT held
	// them (d2d63b6); rt/cgo's Link takes each where JIT leaves its own
	// zero.
	//
	// Deprecated: use JIT.MaxRegisters and JIT.OptLevel.
	MaxRegisters, OptLevel int
	// LineInfo, Debug and Verbose: as MaxRegisters and OptLevel.
	//
	// Deprecated: use JIT.LineInfo, JIT.Debug and JIT.Verbose.
	LineInfo, Debug, Verbose bool
}
