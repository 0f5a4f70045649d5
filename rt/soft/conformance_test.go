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

// TestConformanceStickyFaults runs rttest's sticky-fault checks, each on a
// Driver of its own: a fault leaves the whole Driver unusable.
func TestConformanceStickyFaults(t *testing.T) {
	for _, kind := range rttest.StickyFaultKinds {
		t.Run(kind, func(t *testing.T) {
			rttest.TestStickyFault(t, New(Options{Devices: 2}), kind, rttest.Options{})
		})
	}
}
