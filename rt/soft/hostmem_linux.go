package soft

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"strconv"
	"syscall"
)

// hostLimits is the room Linux leaves the process: MemAvailable
// (/proc/meminfo), the cgroup v2 limit less its usage, and RLIMIT_AS
// (ulimit -v) less the address space in use (/proc/self/statm).
func hostLimits() (uint64, string) {
	room, why := uint64(math.MaxUint64), ""
	take := func(r uint64, w string) {
		if r < room {
			room, why = r, w
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := bytes.Fields(sc.Bytes())
			if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
				if kb, err := strconv.ParseUint(string(f[1]), 10, 64); err == nil {
					take(kb<<10, "the system's available memory")
				}
			}
		}
	}
	if max, ok := readUint("/sys/fs/cgroup/memory.max"); ok {
		cur, _ := readUint("/sys/fs/cgroup/memory.current")
		take(sub(max, cur), "the cgroup's memory limit")
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != math.MaxUint64 && rl.Cur < 1<<62 {
		var used uint64
		if b, err := os.ReadFile("/proc/self/statm"); err == nil {
			if f := bytes.Fields(b); len(f) > 0 {
				if pages, err := strconv.ParseUint(string(f[0]), 10, 64); err == nil {
					used = pages * uint64(os.Getpagesize())
				}
			}
		}
		take(sub(rl.Cur, used), "the address-space limit (ulimit -v)")
	}
	return room, why
}

func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil // "max" is no limit
}

func sub(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return 0
}
