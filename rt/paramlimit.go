package rt

import "errors"

// MaxParamBlock is the most bytes of parameters a kernel can take:
// cuLaunchKernel refuses more. CUDA 12.1 raised it from 4,096 bytes to
// 32,764 on sm_70 and later, where the driver refuses a block over 4,096
// itself. cugen generates no function for a kernel beyond it
// (parse.MaxParamBlock is the same number).
const MaxParamBlock = 32764

// paramBlock is the size of the parameter buffer params lay out, and an
// error when it exceeds MaxParamBlock. Sizes add in 64 bits: an offset near
// 4 GiB plus a size must not wrap into a small buffer.
func paramBlock(lib, kernel string, params []ParamSpec) (uintptr, error) {
	var end uint64
	for _, p := range params {
		end = max(end, uint64(p.Offset)+uint64(p.Size))
	}
	if end > MaxParamBlock {
		return 0, Errorf("rt.Library.Kernel", ErrInvalidValue, "library %s: kernel %s: parameter block of %d bytes exceeds CUDA's limit of %d bytes",
			lib, kernel, end, MaxParamBlock)
	}
	return uintptr(end), nil
}

// declErrors is one error per kernel declared with a parameter block no
// device can take, or nil; l.mu must be held. Load fails with it, so that
// a package with such a kernel says so before anything launches.
func (l *Library) declErrors() error {
	var errs []error
	for _, k := range l.kernels {
		if k.declErr != nil {
			errs = append(errs, k.declErr)
		}
	}
	return errors.Join(errs...)
}
