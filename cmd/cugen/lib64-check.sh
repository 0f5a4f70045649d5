#!/usr/bin/env bash
# lib64-check.sh compares cugen -list -json with cuobjdump -elf on every
# library of the CUDA toolkit's lib64, kernel for kernel and target for
# target (lib64check.py does the work and says what it compares). The GPU
# machine has the toolkit but no Go, so cugen is built here:
#
#	cmd/cugen/lib64-check.sh build          # where Go is: writes .gpu/lib64/ (cugen, lib64check.py)
#	cmd/cugen/lib64-check.sh run [libs...]   # there, with .gpu/lib64 carried along: prints a table last
#
# run checks every regular file named *.so* in $CUDA_LIB64 (default
# /usr/local/cuda/lib64), or the libraries named; LIB64_DETAILS (default 5)
# mismatches are printed per library; LIB64_JOBS (default 1) libraries are
# checked at once. The table last has both tools' peak RSS and their ratio
# (the goal: cugen at most cuobjdump on every library); the exit status is
# 0 only if cugen listed every library, nothing differed and no peak of
# cugen's was above cuobjdump's.
set -u
cd "$(dirname "$0")/../.." || exit 2
dir=.gpu/lib64

case "${1:-}" in
build)
	command -v go >/dev/null || { echo "lib64-check.sh build: needs Go" >&2; exit 2; }
	mkdir -p "$dir" && go build -ldflags="-s -w" -o "$dir/cugen" ./cmd/cugen && cp cmd/cugen/lib64check.py "$dir/" || exit 1
	echo "wrote $dir/cugen and $dir/lib64check.py"
	;;
run)
	shift
	cugen=$dir/cugen py=$dir/lib64check.py
	[ -x "$cugen" ] || cugen=.gpu/cugen # as built by go build -o .gpu/cugen ./cmd/cugen
	[ -f "$py" ] || py=cmd/cugen/lib64check.py
	[ -x "$cugen" ] || { echo "lib64-check.sh run: no $dir/cugen or .gpu/cugen; run 'cmd/cugen/lib64-check.sh build' where Go is" >&2; exit 2; }
	command -v cuobjdump >/dev/null || PATH=$PATH:/usr/local/cuda/bin
	exec python3 "$py" --jobs "${LIB64_JOBS:-1}" --cugen "$cugen" --dir "${CUDA_LIB64:-/usr/local/cuda/lib64}" --details "${LIB64_DETAILS:-5}" "$@"
	;;
*)
	echo "usage: cmd/cugen/lib64-check.sh build | run [libraries...]" >&2
	exit 2
	;;
esac
