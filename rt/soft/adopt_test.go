package soft

import (
	"errors"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestAdoptAfterOwnerFrees checks what rt/soft reports when the owner of an
// adopted object destroys or frees it first: soft always knows (CUDA may
// not; rt.Adopter's conformance checks run on both, in rttest).
func TestAdoptAfterOwnerFrees(t *testing.T) {
	d := New(Options{})
	ctx, err := d.CtxCreate(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.AdoptContext(d, ctx)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := d.StreamCreate(ctx, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.AdoptStream(sh)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.MemAlloc(ctx, 256)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.AdoptBuffer[int32](c, p, 64)
	if err != nil {
		t.Fatal(err)
	}

	// The owner frees the memory: the view's copies fail naming the freed
	// allocation, and adopting it again fails.
	if err := d.MemFree(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ToHost(); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("copying from an adopted buffer its owner freed: %v, want an error naming the freed allocation", err)
	}
	if _, err := rt.AdoptBuffer[int32](c, p, 64); !errors.Is(err, rt.ErrInvalidValue) || !strings.Contains(err.Error(), "freed") {
		t.Errorf("adopting freed memory: %v", err)
	}

	// The owner destroys the stream.
	if err := d.StreamDestroy(ctx, sh); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); !errors.Is(err, rt.ErrInvalidHandle) {
		t.Errorf("synchronizing an adopted stream its owner destroyed: %v, want %s", err, rt.ErrInvalidHandle.Name())
	}
	if _, err := rt.AdoptStream(d, sh); !errors.Is(err, rt.ErrInvalidHandle) {
		t.Errorf("adopting a destroyed stream: %v", err)
	}

	// The owner destroys the context.
	if err := d.CtxDestroy(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Synchronize(); !errors.Is(err, rt.ErrInvalidContext) {
		t.Errorf("synchronizing an adopted context its owner destroyed: %v", err)
	}
	if _, err := rt.AdoptContext(d, ctx); !errors.Is(err, rt.ErrInvalidContext) {
		t.Errorf("adopting a destroyed context: %v", err)
	}
}
