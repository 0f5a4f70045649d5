package soft

import (
	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt/soft/exec"
)

// Check reports whether rt/soft can run image, without running it.
//
// Deprecated: use exec.Check, which is the same and does not link the
// driver.
func Check(name string, image []byte) error { return exec.Check(name, image) }

// CheckBudget is Check within a decompression budget.
//
// Deprecated: use exec.CheckBudget, which is the same and does not link
// the driver.
func CheckBudget(name string, image []byte, b *fatbin.Budget) error {
	return exec.CheckBudget(name, image, b)
}

// MaxCheckedBody is exec.MaxCheckedBody, the most PTX of one kernel that
// Check checks.
//
// Deprecated: use exec.MaxCheckedBody.
const MaxCheckedBody = exec.MaxCheckedBody

// CheckSkipped is exec.CheckSkipped, Check's answer for kernels too large
// to check.
//
// Deprecated: use exec.CheckSkipped.
type CheckSkipped = exec.CheckSkipped
