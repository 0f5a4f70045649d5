package nccl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// EnvLib names the NCCL library to load (a path to libnccl.so.2),
// instead of the search NCCL's loader does (see libCandidates).
const EnvLib = "CUGEN_NCCL_LIB"

// minVersion is the oldest NCCL rt/nccl loads: 2.18, the first with
// ncclCommSplit and the ncclConfig_t fields it sets.
const minVersion = 21800

// libCandidates lists the libraries to try, in order: $CUGEN_NCCL_LIB
// alone when set; else the dynamic linker's libnccl.so.2
// (LD_LIBRARY_PATH, the ld.so cache: a system install such as
// /usr/lib/x86_64-linux-gnu), then the nvidia-nccl-cu* pip wheels' copies
// in the active virtual or conda environment and the usual Python
// package directories.
func libCandidates() []string {
	if p := os.Getenv(EnvLib); p != "" {
		return []string{p}
	}
	out := []string{"libnccl.so.2"}
	var roots []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := os.Getenv(env); v != "" {
			roots = append(roots, v)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local"))
	}
	roots = append(roots, "/usr/local", "/usr", "/opt/conda")
	seen := map[string]bool{}
	for _, root := range roots {
		for _, pat := range []string{"lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2", "lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2"} {
			m, _ := filepath.Glob(filepath.Join(root, pat))
			sort.Sort(sort.Reverse(sort.StringSlice(m))) // newest Python first
			for _, p := range m {
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// versionString spells an ncclGetVersion code, 22803 as "2.28.3".
func versionString(v int) string {
	if v < 10000 { // NCCL's codes before 2.9: X*1000 + Y*100 + Z
		return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
}
