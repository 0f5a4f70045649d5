package soft

import (
	"testing"

	"github.com/cugen/cugen/rt/rttest"
)

// TestConformance runs rt's driver conformance suite on soft: two devices,
// so that the per-device checks run too.
func TestConformance(t *testing.T) {
	rttest.TestDriver(t, New(Options{Devices: 2}), rttest.Options{})
}

// TestConformanceBlocking runs it with LaunchBlocking and one worker: each
// launch finishes before Launch returns.
func TestConformanceBlocking(t *testing.T) {
	rttest.TestDriver(t, New(Options{LaunchBlocking: true, Workers: 1}), rttest.Options{LaunchBlocking: true})
}
