package rt

// Optional backend capabilities beyond Driver. Each is a small interface that
// rt code type-asserts a Driver to; a backend without one simply does not
// implement it. The cgo backend implements all of them.

// LoadingModer reports the driver's module loading mode: lazy (the default
// since CUDA 12.2, and what CUDA_MODULE_LOADING=LAZY asks for) loads a
// kernel's code into a context at its first use there, which can stall that
// first launch; eager loads everything at load time.
type LoadingModer interface {
	LoadingMode() (lazy bool, err error) // cuModuleGetLoadingMode
}

// WarmUpper forces every kernel of a library to load in a context now
// (cuLibraryGetModule and cuKernelGetFunction for each kernel), so that no
// later launch in that context pays for lazy loading. ctx 0 means the calling
// thread's current context.
type WarmUpper interface {
	WarmUp(lib LibHandle, ctx CtxHandle) error
}

// JITLogger returns the PTX compiler's info log of a loaded library: what
// LoadOptions.JIT.Verbose asks for (registers, spills, stack per kernel).
type JITLogger interface {
	LibraryJITLog(lib LibHandle) (string, error)
}

// FuncAttr is a CUfunction_attribute value.
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

// KernelAttributer gets and sets a kernel's attributes on one device
// (cuKernelGetAttribute, cuKernelSetAttribute). Attributes are per device: a
// kernel that needs more than 48 KiB of dynamic shared memory must have
// FuncMaxDynamicSharedSizeBytes set on every device it runs on.
type KernelAttributer interface {
	KernelAttribute(k KernelHandle, attr FuncAttr, dev int) (int, error)
	SetKernelAttribute(k KernelHandle, attr FuncAttr, value int, dev int) error
}
