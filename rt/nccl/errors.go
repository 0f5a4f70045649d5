package nccl

import (
	"errors"
	"fmt"
)

// Result is an ncclResult_t code. Both engines report the codes NCCL
// would: the soft one uses InvalidArgument and InvalidUsage for what NCCL
// refuses, RemoteError for a peer that failed or never came, and
// SystemError for a broken connection.
type Result int32

// The ncclResult_t values; the numbers are NCCL's (nccl.h).
const (
	Success            Result = 0
	UnhandledCudaError Result = 1
	SystemError        Result = 2
	InternalError      Result = 3
	InvalidArgument    Result = 4
	InvalidUsage       Result = 5
	RemoteError        Result = 6
	InProgress         Result = 7
)

var resultNames = [...][2]string{
	{"ncclSuccess", "no error"},
	{"ncclUnhandledCudaError", "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"},
	{"ncclSystemError", "unhandled system error (run with NCCL_DEBUG=INFO for details)"},
	{"ncclInternalError", "internal error - please report this issue to the NCCL developers"},
	{"ncclInvalidArgument", "invalid argument (run with NCCL_DEBUG=WARN for details)"},
	{"ncclInvalidUsage", "invalid usage (run with NCCL_DEBUG=WARN for details)"},
	{"ncclRemoteError", "remote process exited or there was a network error"},
	{"ncclInProgress", "NCCL operation in progress"},
}

// Name is the code's enum name, e.g. "ncclInvalidUsage".
func (r Result) Name() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r][0]
	}
	return fmt.Sprintf("ncclResult_t(%d)", int32(r))
}

// Text describes the code, in the words ncclGetErrorString uses.
func (r Result) Text() string {
	if r >= 0 && int(r) < len(resultNames) {
		return resultNames[r][1]
	}
	return "unknown result code"
}

// Error makes a Result usable as an errors.Is target:
// errors.Is(err, nccl.InvalidUsage) holds for any *Error with that code.
func (r Result) Error() string { return r.Name() + ": " + r.Text() }

// Error is a failed NCCL call or a call that rt/nccl refused before it
// reached NCCL: which operation, NCCL's code, NCCL's own message for it
// (ncclGetLastError, when NCCL left one) and what rt/nccl adds.
type Error struct {
	Op      string // "ncclAllReduce", "nccl.InitRank", ...
	Code    Result
	Message string // NCCL's last-error text, or the soft engine's
	Detail  string // what rt/nccl checked or was doing
	// Err is an underlying error (an *rt.Error from the CUDA side, a
	// network error), for errors.Is and errors.As.
	Err error
}

func (e *Error) Error() string {
	s := e.Op + ": " + e.Code.Name() + " (" + e.Code.Text() + ")"
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Message != "" {
		s += ": NCCL says: " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
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

// Unwrap is the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// errorf builds an *Error for op with code and a formatted detail.
func errorf(op string, code Result, format string, args ...any) *Error {
	return &Error{Op: op, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// CodeOf returns the ncclResult_t carried by err: Success for nil,
// InternalError for an error that carries none.
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
	return InternalError
}
