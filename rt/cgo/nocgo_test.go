//go:build !cgo

package cgo

import "testing"

func TestNewWithoutCgo(t *testing.T) {
	if d, err := New(); err == nil || d != nil {
		t.Fatalf("New() = %v, %v; want an error in a build without cgo", d, err)
	}
}
