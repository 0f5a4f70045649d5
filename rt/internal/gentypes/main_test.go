package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFilesAreCurrent fails when a committed generated file differs
// from what gentypes writes now (run go generate ./rt).
func TestCommittedFilesAreCurrent(t *testing.T) {
	for name, want := range outputs() {
		path := filepath.Join("..", "..", name)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./rt", path)
		}
	}
}

// TestCUDALayouts pins the table to vector_types.h for a few types whose
// alignment is easy to get wrong.
func TestCUDALayouts(t *testing.T) {
	want := map[string][2]int{ // size, align
		"char1": {1, 1}, "char2": {2, 2}, "char3": {3, 1}, "char4": {4, 4},
		"short3": {6, 2}, "short4": {8, 8}, "int2": {8, 8}, "int3": {12, 4}, "int4": {16, 16},
		"float3": {12, 4}, "float4": {16, 16}, "long2": {16, 16}, "long3": {24, 8}, "long4": {32, 16},
		"double2": {16, 16}, "double4": {32, 16}, "longlong4_32a": {32, 32}, "dim3": {12, 4},
	}
	got := map[string][2]int{}
	for _, r := range table() {
		got[r.cuda] = [2]int{r.size, r.align}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: size, align %v, want %v", name, got[name], w)
		}
	}
	if len(got) != 12*4+len(extras) {
		t.Errorf("%d table entries: a duplicate name", len(got))
	}
}
