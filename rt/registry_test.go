package rt

import (
	"strings"
	"testing"
)

// TestBackendErrors: a backend that is not there is named with the import
// that provides it; an unknown name gets the valid names and their imports.
func TestBackendErrors(t *testing.T) {
	const valid = `the backends are cuda (import _ "github.com/cugen/cugen/rt/cgo") and soft (import _ "github.com/cugen/cugen/rt/soft") (registered: `
	if _, err := Open("cuda"); err == nil || !strings.HasPrefix(err.Error(), `rt: backend "cuda" is not registered: import _ "github.com/cugen/cugen/rt/cgo" (`) {
		t.Errorf(`Open("cuda") without rt/cgo: %v`, err)
	}
	if _, err := Open("gpu"); err == nil || !strings.HasPrefix(err.Error(), `rt: no backend "gpu"; `+valid) {
		t.Errorf(`Open("gpu"): %v`, err)
	}
	t.Setenv(EnvBackend, "gpu")
	if _, err := chooseDefault(); err == nil || !strings.HasPrefix(err.Error(), `rt: CUGEN_BACKEND=gpu: no backend "gpu"; `+valid) {
		t.Errorf("CUGEN_BACKEND=gpu: %v", err)
	}
}
