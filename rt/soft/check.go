package soft

import (
	"errors"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt/soft/loadcheck"
)

// Check reports whether rt/soft can run image, without running it.
//
// Deprecated: use loadcheck.Check, which is the same and does not link
// the driver (it returns a *loadcheck.CheckSkipped where this returns a
// *CheckSkipped).
func Check(name string, image []byte) error { return checkError(loadcheck.Check(name, image)) }

// CheckBudget is Check within a decompression budget.
//
// Deprecated: use loadcheck.CheckBudget, which is the same and does not
// link the driver.
func CheckBudget(name string, image []byte, b *fatbin.Budget) error {
	return checkError(loadcheck.CheckBudget(name, image, b))
}

// MaxCheckedBody is the most PTX text of one kernel (or of all device
// functions together) that Check checks.
//
// Deprecated: use loadcheck.MaxCheckedBody.
const MaxCheckedBody = loadcheck.MaxCheckedBody

// CheckSkipped is Check's answer for an image with kernels too large to
// check within bounded memory: everything else was checked and passed;
// Funcs were not. It is loadcheck.CheckSkipped, field for field.
//
// Deprecated: use loadcheck.CheckSkipped, which loadcheck.Check returns.
type CheckSkipped struct {
	Image  string
	Funcs  []string // the kernels not checked, or the largest device function
	Device bool     // the device functions together were too large: nothing was checked
	Bytes  int      // the largest one's PTX (or the device functions' together)
}

func (e *CheckSkipped) Error() string { return (*loadcheck.CheckSkipped)(e).Error() }

// CheckSkippedOnly marks the error as a skipped check rather than a failed
// one (gen/pipeline reports it as a warning).
func (e *CheckSkipped) CheckSkippedOnly() {}

// checkError is loadcheck's answer in rt/soft's types.
func checkError(err error) error {
	var sk *loadcheck.CheckSkipped
	if errors.As(err, &sk) {
		return (*CheckSkipped)(sk)
	}
	return err
}
