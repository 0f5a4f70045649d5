#!/usr/bin/env bash
# Run on the GPU machine from the repo root, after building .gpu/cugen here:
#   go build -o .gpu/cugen ./cmd/cugen
# Times `cugen -list -json` against `cuobjdump -elf` on NVIDIA's own libraries,
# side by side in one run (3 alternating repetitions each), with peak memory,
# and prints a table of the medians and their ratios.
set -euo pipefail
LIBS=${LIBS:-"/usr/local/cuda/lib64/libcurand.so /usr/local/cuda/lib64/libcufft.so /usr/local/cuda/lib64/libcublasLt.so"}
python3 - $LIBS <<'PY'
import os, statistics, sys, time
rows = []
for lib in sys.argv[1:]:
    lib = os.path.realpath(lib)
    res = {"cugen": [], "cuobjdump": []}
    mem = {}
    for rep in range(3):
        for name, cmd in (("cugen", [".gpu/cugen", "-list", "-json", lib]), ("cuobjdump", ["cuobjdump", "-elf", lib])):
            pid = os.fork()
            if pid == 0:
                os.execvp("/usr/bin/env", ["env", "bash", "-c", 'exec "$@" >/dev/null 2>/tmp/err.txt', "x"] + cmd)
            t0 = time.perf_counter()
            _, status, ru = os.wait4(pid, 0)
            res[name].append(time.perf_counter() - t0)
            mem[name] = max(mem.get(name, 0), ru.ru_maxrss)
            if status != 0:
                print(name, lib, "failed:", open("/tmp/err.txt").read()[:500])
    a, b = statistics.median(res["cugen"]), statistics.median(res["cuobjdump"])
    rows.append((os.path.basename(lib), os.path.getsize(lib) >> 20, a, b, b / a, mem["cugen"] >> 10, mem["cuobjdump"] >> 10))
print("%-28s %7s %10s %12s %8s %10s %14s" % ("library", "MiB", "cugen s", "cuobjdump s", "speedup", "cugen MiB", "cuobjdump MiB"))
for r in rows:
    print("%-28s %7d %10.3f %12.3f %7.1fx %10d %14d" % r)
PY
