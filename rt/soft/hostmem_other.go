//go:build !linux

package soft

import "math"

// hostLimits knows no system limits but Linux's.
func hostLimits() (uint64, string) { return math.MaxUint64, "" }
