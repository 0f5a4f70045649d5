package rt

// Optional backend capabilities beyond Driver. Each is a small interface
// that rt and its callers type-assert a Driver to; a backend without one
// simply does not implement it, and rt's helpers then report ErrNotSupported
// or do without. rt/cgo implements all of them; rt/soft implements
// ParamInfoer.

// ParamInfoer reports a kernel's parameter layout as the driver reads the
// parameter buffer (cuKernelGetParamInfo, CUDA 12.4+): each parameter's
// offset and size, in order. rt checks a Kernel's declared layout against it
// once per (kernel, driver), when it binds the kernel in that driver. An
// error means the driver cannot tell (too old, or no context to ask in);
// rt then launches with the declared layout unchecked.
type ParamInfoer interface {
	KernelParamInfo(k KernelHandle) ([]ParamSpec, error)
}

// KernelAttributer gets and sets a kernel's attributes on one device
// (cuKernelGetAttribute, cuKernelSetAttribute). Attributes are per device: a
// kernel that needs more than 48 KiB of dynamic shared memory must have
// FuncMaxDynamicSharedSizeBytes set on every device it runs on.
type KernelAttributer interface {
	KernelAttribute(k KernelHandle, attr FuncAttr, dev int) (int, error)
	SetKernelAttribute(k KernelHandle, attr FuncAttr, value int, dev int) error
}

// JITLogger returns the PTX compiler's info log of a loaded library: what
// LoadOptions.JIT.Verbose asks for (registers, spills, stack per kernel).
// Library.JITLog is its rt-level form.
type JITLogger interface {
	LibraryJITLog(lib LibHandle) (string, error)
}

// WarmUpper forces every kernel of a library to load in a context now
// (cuLibraryGetModule and cuKernelGetFunction for each kernel), so that no
// later launch in that context pays for lazy loading. ctx 0 means the calling
// thread's current context.
type WarmUpper interface {
	WarmUp(lib LibHandle, ctx CtxHandle) error
}

// LoadingModer reports the driver's module loading mode: lazy (the default
// since CUDA 12.2, and what CUDA_MODULE_LOADING=LAZY asks for) loads a
// kernel's code into a context at its first use there, which can stall that
// first launch; eager loads everything at load time.
type LoadingModer interface {
	LoadingMode() (lazy bool, err error) // cuModuleGetLoadingMode
}

// Linker links relocatable device code into one image that LibraryLoad
// accepts (a cubin): cuLinkCreate, cuLinkAddData per LinkInput,
// cuLinkComplete and cuLinkDestroy. The linker's info log is returned with
// the image; on failure the error (an *Error) carries the error and info logs
// in its Detail.
type Linker interface {
	Link(inputs []LinkInput, opts LinkOptions) (image []byte, log string, err error)
}

// FuncAttr is a CUfunction_attribute value (KernelAttributer).
type FuncAttr int32

// Kernel attributes; the values are CUDA's (cuda.h). Only
// FuncMaxDynamicSharedSizeBytes, FuncPreferredSharedMemoryCarveout,
// FuncRequiredCluster*, FuncNonPortableClusterSizeAllowed and
// FuncClusterSchedulingPolicyPreference can be set.
const (
	FuncMaxThreadsPerBlock                FuncAttr = 0
	FuncSharedSizeBytes                   FuncAttr = 1
	FuncConstSizeBytes                    FuncAttr = 2
	FuncLocalSizeBytes                    FuncAttr = 3
	FuncNumRegs                           FuncAttr = 4
	FuncPTXVersion                        FuncAttr = 5
	FuncBinaryVersion                     FuncAttr = 6
	FuncCacheModeCA                       FuncAttr = 7
	FuncMaxDynamicSharedSizeBytes         FuncAttr = 8
	FuncPreferredSharedMemoryCarveout     FuncAttr = 9
	FuncClusterSizeMustBeSet              FuncAttr = 10
	FuncRequiredClusterWidth              FuncAttr = 11
	FuncRequiredClusterHeight             FuncAttr = 12
	FuncRequiredClusterDepth              FuncAttr = 13
	FuncNonPortableClusterSizeAllowed     FuncAttr = 14
	FuncClusterSchedulingPolicyPreference FuncAttr = 15
)
