package rt

import (
	"errors"
	"fmt"

	"github.com/cugen/cugen/rt/internal/cuerr"
)

// Result is a CUresult code. Both backends report the codes CUDA would.
type Result int32

// The CUresult values rt names; the numbers are CUDA's (cuda.h).
const (
	Success                        Result = 0
	ErrInvalidValue                Result = 1
	ErrOutOfMemory                 Result = 2
	ErrNotInitialized              Result = 3
	ErrDeinitialized               Result = 4
	ErrNoDevice                    Result = 100
	ErrInvalidDevice               Result = 101
	ErrInvalidImage                Result = 200
	ErrInvalidContext              Result = 201
	ErrContextAlreadyCurrent       Result = 202
	ErrMapFailed                   Result = 205
	ErrNoBinaryForGPU              Result = 209
	ErrInvalidPTX                  Result = 218
	ErrUnsupportedPTXVersion       Result = 222
	ErrJITCompilerNotFound         Result = 221
	ErrInvalidSource               Result = 300
	ErrFileNotFound                Result = 301
	ErrPeerAccessUnsupported       Result = 217
	ErrInvalidHandle               Result = 400
	ErrIllegalState                Result = 401
	ErrNotFound                    Result = 500
	ErrNotReady                    Result = 600
	ErrIllegalAddress              Result = 700
	ErrLaunchOutOfResources        Result = 701
	ErrLaunchTimeout               Result = 702
	ErrLaunchIncompatibleTexturing Result = 703
	ErrPeerAccessAlreadyEnabled    Result = 704
	ErrPeerAccessNotEnabled        Result = 705
	ErrContextIsDestroyed          Result = 709
	ErrAssert                      Result = 710
	ErrHardwareStackError          Result = 714
	ErrIllegalInstruction          Result = 715
	ErrMisalignedAddress           Result = 716
	ErrInvalidAddressSpace         Result = 717
	ErrInvalidPC                   Result = 718
	ErrLaunchFailed                Result = 719
	ErrCooperativeLaunchTooLarge   Result = 720
	ErrNotPermitted                Result = 800
	ErrNotSupported                Result = 801
	ErrStreamCaptureUnsupported    Result = 900
	ErrStreamCaptureInvalidated    Result = 901
	ErrStreamCaptureMerge          Result = 902
	ErrStreamCaptureUnmatched      Result = 903
	ErrStreamCaptureUnjoined       Result = 904
	ErrStreamCaptureIsolation      Result = 905
	ErrStreamCaptureImplicit       Result = 906
	ErrCapturedEvent               Result = 907
	ErrStreamCaptureWrongThread    Result = 908
	ErrGraphExecUpdateFailure      Result = 910
	ErrInvalidClusterSize          Result = 912
	ErrUnknown                     Result = 999
)

var resultNames = map[Result][2]string{
	Success:                        {"CUDA_SUCCESS", "no error"},
	ErrInvalidValue:                {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	ErrOutOfMemory:                 {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	ErrNotInitialized:              {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	ErrDeinitialized:               {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	ErrNoDevice:                    {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	ErrInvalidDevice:               {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	ErrInvalidImage:                {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	ErrInvalidContext:              {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	ErrContextAlreadyCurrent:       {"CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "context already current"},
	ErrMapFailed:                   {"CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
	ErrNoBinaryForGPU:              {"CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
	ErrInvalidPTX:                  {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
	ErrUnsupportedPTXVersion:       {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain"},
	ErrJITCompilerNotFound:         {"CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
	ErrInvalidSource:               {"CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
	ErrFileNotFound:                {"CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
	ErrPeerAccessUnsupported:       {"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
	ErrInvalidHandle:               {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	ErrIllegalState:                {"CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"},
	ErrNotFound:                    {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	ErrNotReady:                    {"CUDA_ERROR_NOT_READY", "device not ready"},
	ErrIllegalAddress:              {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
	ErrLaunchOutOfResources:        {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
	ErrLaunchTimeout:               {"CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
	ErrLaunchIncompatibleTexturing: {"CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "launch uses incompatible texturing mode"},
	ErrPeerAccessAlreadyEnabled:    {"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
	ErrPeerAccessNotEnabled:        {"CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
	ErrContextIsDestroyed:          {"CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
	ErrAssert:                      {"CUDA_ERROR_ASSERT", "device-side assert triggered"},
	ErrHardwareStackError:          {"CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
	ErrIllegalInstruction:          {"CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
	ErrMisalignedAddress:           {"CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
	ErrInvalidAddressSpace:         {"CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"},
	ErrInvalidPC:                   {"CUDA_ERROR_INVALID_PC", "invalid program counter"},
	ErrLaunchFailed:                {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	ErrCooperativeLaunchTooLarge:   {"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
	ErrNotPermitted:                {"CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
	ErrNotSupported:                {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	ErrStreamCaptureUnsupported:    {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
	ErrStreamCaptureInvalidated:    {"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture"},
	ErrStreamCaptureMerge:          {"CUDA_ERROR_STREAM_CAPTURE_MERGE", "operation would result in a merge of separate capture sequences"},
	ErrStreamCaptureUnmatched:      {"CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "capture was not ended in the same stream as it began"},
	ErrStreamCaptureUnjoined:       {"CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "capturing stream has unjoined work"},
	ErrStreamCaptureIsolation:      {"CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "dependency created on uncaptured work in another stream"},
	ErrStreamCaptureImplicit:       {"CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "operation would make the legacy stream depend on a capturing blocking stream"},
	ErrCapturedEvent:               {"CUDA_ERROR_CAPTURED_EVENT", "operation not permitted on an event last recorded in a capturing stream"},
	ErrStreamCaptureWrongThread:    {"CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "attempt to terminate a thread-local capture sequence from another thread"},
	ErrGraphExecUpdateFailure:      {"CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
	ErrInvalidClusterSize:          {"CUDA_ERROR_INVALID_CLUSTER_SIZE", "a kernel launch error has occurred due to cluster misconfiguration"},
	ErrUnknown:                     {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// Name is the CUresult's enum name, e.g. "CUDA_ERROR_INVALID_CONTEXT".
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n[0]
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Text is CUDA's description of the code.
func (r Result) Text() string {
	if n, ok := resultNames[r]; ok {
		return n[1]
	}
	return "unrecognized error code"
}

// Sticky reports whether the code is one of the kernel faults that leave
// CUDA unusable in the process: after such a fault every later call that
// works in a context (launches, copies, allocations, synchronisation) in
// the faulted context or any other, and creating or retaining a context,
// returns the same code. CUDA's documentation says so (for
// CUDA_ERROR_ILLEGAL_ADDRESS: "This leaves the process in an inconsistent
// state and any further CUDA work will return the same error. To continue
// using CUDA, the process must be terminated and relaunched."), and an H100
// (driver 580) does it: after a trap in a created context, the device's
// primary context, cuCtxCreate, and a primary context retained again after
// every context was released all failed with the fault's code.
//
// Releasing contexts still works; nothing else brings CUDA back. A program
// that must survive a faulting kernel runs it in a child process. rt/soft
// does the same per soft.Driver (a Driver is its process); rt/rttest's
// TestStickyFault checks both backends, each fault in a process (a Driver)
// of its own.
func (r Result) Sticky() bool {
	switch r {
	case ErrIllegalAddress, ErrMisalignedAddress, ErrIllegalInstruction, ErrAssert, ErrLaunchFailed,
		ErrHardwareStackError, ErrLaunchTimeout, ErrInvalidAddressSpace, ErrInvalidPC:
		return true
	}
	return false
}

// Error makes a Result usable as an error value and as an errors.Is target:
// errors.Is(err, rt.ErrInvalidContext) holds for any *Error with that code.
func (r Result) Error() string { return r.Name() + ": " + r.Text() }

// Error is a failed driver call: which call, the CUresult with its name and
// text (from the driver where it has them), and what rt was doing.
type Error struct {
	Op     string // the driver call or rt operation, e.g. "cuLaunchKernel"
	Code   Result
	Name   string // the driver's name for Code
	Text   string // the driver's description of Code
	Detail string // what rt or the backend adds: kernel, variable, thread, PTX line…
	// Async is set when the error was reported by this call but caused by
	// earlier asynchronous work (CUDA reports such errors at the next call).
	Async bool
}

func (e *Error) Error() string {
	name, text := e.Name, e.Text
	if name == "" {
		name = e.Code.Name()
	}
	if text == "" {
		text = e.Code.Text()
	}
	s := e.Op + ": " + name + " (" + text + ")"
	if e.Async {
		s += " [from earlier asynchronous work]"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is lets errors.Is match an *Error against a Result.
func (e *Error) Is(target error) bool {
	var r Result
	if errors.As(target, &r) {
		return e.Code == r
	}
	return false
}

// Errorf builds an *Error for op with code and a formatted detail.
func Errorf(op string, code Result, format string, args ...any) *Error {
	return &Error{Op: op, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// CodeOf returns the CUresult carried by err, Success for nil, ErrUnknown otherwise.
func CodeOf(err error) Result {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var r Result
	if errors.As(err, &r) {
		return r
	}
	return ErrUnknown
}

// The packages rt imports fail with rt's errors through cuerr (see there).
func init() {
	cuerr.New = func(op string, code int32, detail string) error {
		return &Error{Op: op, Code: Result(code), Detail: detail}
	}
}
