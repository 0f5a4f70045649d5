package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/cugen/cugen/gen/fresh"
)

// TestRecordedInputs: every example's generated files match what they
// record being made from (gen/fresh, what cugen -check runs): the cheap
// check, no compiler run, that a package's own test can make.
func TestRecordedInputs(t *testing.T) {
	dirs := generatedPackages(t)
	if len(dirs) == 0 {
		t.Fatal("no generated packages")
	}
	for _, dir := range dirs {
		if err := fresh.Dir(dir); err != nil {
			t.Errorf("%s: %v", filepath.ToSlash(dir), err)
		}
	}
}
