#!/bin/sh
# speed.sh: rt/soft's kernel-class benchmarks (BenchmarkClass in
# speed_bench_test.go), soft beside plain Go, in interleaved rounds, and the
# table of soft/Go CPU-time ratios (medians over the rounds).
#
#   rt/soft/testdata/speed.sh [-count N] [-benchtime T] [test-binary...]
#
# With no binary it builds one from the tree (go test -c). With several
# (e.g. a before and an after build) each round runs each binary in turn,
# and the table adds the speedup of the last over the first.
set -e
count=5 benchtime=3x
while [ $# -gt 0 ]; do
	case $1 in
	-count) count=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	*) break ;;
	esac
done
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=$(mktemp -d)
if [ $# -eq 0 ]; then
	go test -c -o "$out/soft.test" "$root/rt/soft"
	set -- "$out/soft.test"
fi
abs=
for b in "$@"; do case $b in /*) abs="$abs $b" ;; *) abs="$abs $PWD/$b" ;; esac; done
set -- $abs
i=0
for b in "$@"; do i=$((i+1)); : > "$out/$i-$(basename "$b").txt"; done
r=0
while [ $r -lt "$count" ]; do
	r=$((r+1)) i=0
	for b in "$@"; do
		i=$((i+1))
		(cd "$root/rt/soft" && "$b" -test.run '^$' -test.bench '^BenchmarkClass$' -test.benchtime "$benchtime" -test.count 1) >> "$out/$i-$(basename "$b").txt"
	done
	echo "round $r of $count done" >&2
done
cd "$root" && go run ./rt/soft/internal/benchratio "$out"/*.txt
echo "raw output: $out" >&2
