package rt_test

import (
	"errors"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestAdoptUnchecked: a backend without rt.Adopter (the Fake) still lets a
// program wrap handles whose context it names, unchecked, and refuses what
// needs the driver's answer; the wrapped objects are views either way.
func TestAdoptUnchecked(t *testing.T) {
	f := newFake()
	if _, err := rt.AdoptStream(f, 7); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("rt.AdoptStream without rt.Adopter: %v, want %s", err, rt.ErrNotSupported.Name())
	}
	c, err := rt.AdoptContext(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.AdoptStream(7)
	if err != nil || s.Handle() != 7 || !s.Adopted() {
		t.Fatalf("Context.AdoptStream(7): %v, %v", s, err)
	}
	if err := s.Destroy(); !errors.Is(err, rt.ErrNotPermitted) {
		t.Errorf("Destroy of an adopted stream: %v", err)
	}
	b, err := rt.AdoptBuffer[float32](c, 0x1000, 8)
	if err != nil || !b.IsView() || b.Bytes() != 32 {
		t.Fatalf("AdoptBuffer: %+v, %v", b, err)
	}
	if err := b.Free(); !errors.Is(err, rt.ErrNotPermitted) {
		t.Errorf("Free of an adopted buffer: %v", err)
	}
	if _, err := rt.AdoptBuffer[float64](c, 0x1004, 1); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("a misaligned float64 view: %v", err)
	}
	own, err := rt.Alloc[float32](c, 8)
	if err != nil {
		t.Fatal(err)
	}
	if own.IsView() {
		t.Error("an allocation is a view")
	}
	if _, err := own.Slice(0, 9); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("Slice(0, 9) of 8: %v", err)
	}
	if err := own.Free(); err != nil {
		t.Errorf("Free of an allocation: %v", err)
	}
	if _, err := c.AdoptEvent(0); !errors.Is(err, rt.ErrInvalidHandle) {
		t.Errorf("AdoptEvent(0): %v", err)
	}
	if _, err := lib.Native(f); !errors.Is(err, rt.ErrNotSupported) {
		t.Errorf("Library.Native without rt.NativeHandler: %v", err)
	}
}

// A context rt destroyed is refused before the driver is asked about it:
// libcuda frees a destroyed context, and cuCtxGetDevice on its handle crashed
// the process on the H200 (the misuse suite's "a released context's handle").
func TestAdoptDestroyedContext(t *testing.T) {
	f := newFake()
	devs, err := rt.DevicesOf(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := devs[0].NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handle()
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.AdoptContext(f, h); !errors.Is(err, rt.ErrInvalidContext) {
		t.Fatalf("AdoptContext of a context rt destroyed: %v, want CUDA_ERROR_INVALID_CONTEXT", err)
	}
}
