package clang

import (
	"fmt"
	"regexp"
	"strings"
)

// What a failed compile's message gets besides clang's own. The constructs
// cugen's headers do not provide but declare (grid-wide sync, the SIMD
// video intrinsics, ...) fail through clang's "unavailable" attribute, whose
// text (include/cugen/unsupported.h) names the construct and the way out
// and clang places at the file and line of the use; what the headers do not
// know of at all (a toolkit library's header) gets a hint here.

// toolkitHeader matches the headers of the CUDA toolkit's libraries and the
// parts of its runtime cugen's headers do not replace.
var toolkitHeader = regexp.MustCompile(`^(cublas|cublasLt|cufft|curand|cusparse|cusolver|cudnn|nvrtc|nvToolsExt|nvtx3|npp|nvjpeg|cutensor|nccl|nvshmem|cuda/|cub/|thrust/|cute/|cutlass/|cooperative_groups/memcpy_async|mma\.h|cuda_fp8|cuda_fp6|cuda_fp4|cuda_pipeline|cuda_awbarrier|crt/|sm_\d+|texture_|surface_|nv/|cuda_gl|cuda_egl|cuda_d3d|cudaProfiler|cupti)`)

var (
	missingHeader = regexp.MustCompile(`fatal error: '([^']+)' file not found`)
	unknownArch   = regexp.MustCompile(`(?i)unsupported CUDA gpu architecture: (\S+)`)
)

// provided lists, for the hint, what the headers do replace.
const provided = "cuda_runtime.h, cuda.h, cuda_fp16.h, cuda_bf16.h, cuComplex.h, cooperative_groups.h (with reduce.h and scan.h), " +
	"math_constants.h, vector_types.h, device_functions.h, sm_*_intrinsics.h and the device API"

// hint explains a clang failure whose cause is the missing toolkit or an old
// clang; "" when it has nothing to add.
func hint(msg string, c Compiler) string {
	if m := missingHeader.FindStringSubmatch(msg); m != nil {
		h := m[1]
		quoted := strings.Contains(msg, `include "`+h+`"`) // a header of the project's own, most likely
		if toolkitHeader.MatchString(h) || !quoted && strings.HasPrefix(h, "cu") {
			return fmt.Sprintf("\ncugen: hint: %s is part of the CUDA toolkit, which cugen's clang route does not replace "+
				"(it provides %s); compile this file with -compiler nvcc, or build it with nvcc and give cugen the .ptx or .fatbin", h, provided)
		}
		return "\ncugen: hint: a header of your own is found with -I dir (cugen passes -I, -D and -U to clang and reads the source with them)"
	}
	if m := unknownArch.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("\ncugen: hint: clang %d does not compile for %s; a newer clang does (README.md lists the targets of each version): -cc clang-N", c.Version, m[1])
	}
	if strings.Contains(msg, "Cannot select") || strings.Contains(msg, "PLEASE submit a bug report") {
		return fmt.Sprintf("\ncugen: hint: clang %d crashed compiling this file; try a newer clang with -cc, or compile it with -compiler nvcc", c.Version)
	}
	return ""
}

// diagStart matches the first line of one of clang's diagnostics, diagEnd
// a line that belongs to none.
var (
	diagStart = regexp.MustCompile(`^(\S.*?):\d+:\d+: (error|warning|note|fatal error): `)
	diagEnd   = regexp.MustCompile(`^(In file included from |\d+ (error|warning)s? (and \d+ (error|warning)s? )?generated)`)
)

// tidy drops, after each error of cugen's unavailable declarations, the
// notes that point into cugen's headers ("marked unavailable here", the
// macro expansions that declared it), each with its source lines: the error
// names the construct, the use's file and line and the way out already.
func tidy(msg string) string {
	var out []string
	afterUnavailable, dropping := false, false
	for _, line := range strings.Split(msg, "\n") {
		if m := diagStart.FindStringSubmatch(line); m != nil {
			if m[2] == "note" {
				dropping = afterUnavailable && (strings.HasPrefix(m[1], includeName+"/") || m[1] == "<scratch space>")
			} else {
				afterUnavailable, dropping = strings.Contains(line, notInRoute), false
			}
		} else if diagEnd.MatchString(line) {
			dropping = false // a note's source lines end here (clang 13 indents them not)
		}
		if !dropping {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// notInRoute is the text of the unavailable declarations' errors
// (include/cugen/unsupported.h's CUGEN_UNAVAILABLE).
const notInRoute = "is not in cugen's clang route"
