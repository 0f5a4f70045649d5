package rt_test

import (
	"errors"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestResultNames: the codes rt declares but no path of this suite
// returns carry cuda.h's names and a description.
func TestResultNames(t *testing.T) {
	for r, name := range map[rt.Result]string{
		rt.ErrNotInitialized:              "CUDA_ERROR_NOT_INITIALIZED",
		rt.ErrDeinitialized:               "CUDA_ERROR_DEINITIALIZED",
		rt.ErrContextAlreadyCurrent:       "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
		rt.ErrMapFailed:                   "CUDA_ERROR_MAP_FAILED",
		rt.ErrPeerAccessUnsupported:       "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
		rt.ErrJITCompilerNotFound:         "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
		rt.ErrUnsupportedPTXVersion:       "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
		rt.ErrFileNotFound:                "CUDA_ERROR_FILE_NOT_FOUND",
		rt.ErrLaunchOutOfResources:        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
		rt.ErrLaunchIncompatibleTexturing: "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
		rt.ErrContextIsDestroyed:          "CUDA_ERROR_CONTEXT_IS_DESTROYED",
		rt.ErrInvalidAddressSpace:         "CUDA_ERROR_INVALID_ADDRESS_SPACE",
		rt.ErrInvalidPC:                   "CUDA_ERROR_INVALID_PC",
		rt.ErrStreamCaptureMerge:          "CUDA_ERROR_STREAM_CAPTURE_MERGE",
		rt.ErrStreamCaptureUnmatched:      "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
		rt.ErrStreamCaptureIsolation:      "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
		rt.ErrStreamCaptureImplicit:       "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
		rt.ErrStreamCaptureWrongThread:    "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
		rt.ErrGraphExecUpdateFailure:      "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
	} {
		if r.Name() != name || r.Text() == "" || r.Text() == rt.ErrUnknown.Text() {
			t.Errorf("%d: %q (%q), want %s and its description", int32(r), r.Name(), r.Text(), name)
		}
		e := rt.Errorf("op", r, "x")
		if !errors.Is(e, r) || e.Text != "" || e.Error() != "op: "+name+" ("+r.Text()+"): x" {
			t.Errorf("%s as an *Error: %q (Text %q)", name, e, e.Text)
		}
	}
}

// TestSmallValues: the value helpers of rt that generated code and the
// other tests reach only indirectly.
func TestSmallValues(t *testing.T) {
	if n := rt.D3(2, 0, 3).Count(); n != 6 {
		t.Errorf("Count of 2×0×3 = %d, want 6 (a zero component counts as 1)", n)
	}
	var p rt.Ptr[float32]
	q := rt.Cast[uint32](p.Add(4))
	if !p.IsNil() || q.IsNil() || q.Addr() != 16 {
		t.Errorf("Ptr: nil %v, cast %v at %#x", p.IsNil(), q.IsNil(), uint64(q.Addr()))
	}
	if (rt.GraphNode{}).IsZero() != true {
		t.Error("the zero GraphNode is not IsZero")
	}
	if u := rt.Uint128From(1 << 63); u.Lo != 1<<63 || u.Hi != 0 {
		t.Errorf("Uint128From: %+v", u)
	}
	if i := rt.Int128From(-2); i.Lo != ^uint64(1) || i.Hi != -1 {
		t.Errorf("Int128From(-2): %+v", i)
	}
	h := rt.Half2From(1, -2)
	b := rt.BFloat162From(0.5, 3)
	if h.X.Float32() != 1 || h.Y.Float32() != -2 || b.X.Float32() != 0.5 || b.Y.Float32() != 3 {
		t.Errorf("Half2 %v, BFloat162 %v", h, b)
	}
}
