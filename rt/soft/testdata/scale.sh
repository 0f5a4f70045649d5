#!/bin/sh
# scale.sh: wall-clock scaling of rt/soft over Options.Workers on the
# large-grid kernel classes (BenchmarkScale in speed_bench_test.go).
# Build the binary where Go is (from the repository root):
#
#   go test -c -o .gpu/softscale.test ./rt/soft
#
# and run, from the repository root, on the machine with the cores:
#
#   rt/soft/testdata/scale.sh [.gpu/softscale.test] [workers...]   (default 1 2 4 8 16)
#
# It prints per class the wall time per launch (median of 3 rounds) and
# the speedup over 1 worker. Needs only sh, awk and sort.
set -e
bin=${1:-.gpu/softscale.test}
[ $# -gt 0 ] && shift
ws=${*:-1 2 4 8 16}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$(dirname "$0")/.."   # rt/soft: the benchmarks read testdata/
out=$(mktemp)
for w in $ws; do
	for r in 1 2 3; do
		GOMAXPROCS=$w "$bin" -test.run '^$' -test.bench '^BenchmarkScale$' -test.benchtime 5x -test.count 1 -soft.workers "$w" |
			awk -v w="$w" '/^BenchmarkScale\// { n=$1; sub(/^BenchmarkScale\//, "", n); sub(/-[0-9]+$/, "", n); print n, w, $3 }' >> "$out"
	done
	echo "workers=$w done" >&2
done
sort -k1,1 -k2,2n -k3,3n "$out" | awk '
	{ k=$1" "$2; v[k, ++c[k]]=$3; if (!(k in seen)) { seen[k]=1; keys[++nk]=k } }
	END {
		printf "%-12s %8s %12s %8s\n", "class", "workers", "ms/launch", "speedup"
		for (i=1; i<=nk; i++) {
			k=keys[i]; split(k, p, " "); m=v[k, int((c[k]+1)/2)]/1e6
			if (p[2]==1 || !(p[1] in base)) base[p[1]]=m
			printf "%-12s %8d %12.2f %7.2fx\n", p[1], p[2], m, base[p[1]]/m
		}
	}'
rm -f "$out"
