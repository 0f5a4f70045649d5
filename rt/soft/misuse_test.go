package soft

import (
	"testing"

	"github.com/cugen/cugen/rt/rttest"
)

// TestMisuse runs rttest's misuse cases on soft, with two devices so that
// the cases of objects of another device run too.
func TestMisuse(t *testing.T) {
	rttest.TestMisuse(t, New(Options{Devices: 2}), rttest.Options{})
}
