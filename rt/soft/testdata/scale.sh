#!/bin/sh
# scale.sh: wall-clock scaling of rt/soft over Options.Workers on the
# large-grid kernel classes (BenchmarkScale in speed_bench_test.go).
# Build the binary where Go is (from the repository root):
#
#   go test -c -trimpath -ldflags='-s -w' -o .gpu/softscale.test ./rt/soft && xz -9e -kf .gpu/softscale.test
#
# (about 10 MB packed: without symbols, which profiles do not need, as Go
# writes them symbolized)
# and run, from the repository root, on the machine with the cores (the
# .xz is unpacked when only it is there):
#
#   rt/soft/testdata/scale.sh [.gpu/softscale.test] [workers...]   (default 1 2 4 8 16)
#
# It prints the CPUs (and how many hardware threads share a core: 16
# threads on 8 cores scale like 8 cores), then per class and worker count
# the wall time per launch (median of 3 rounds), the speedup over 1 worker,
# the CPU time per launch (growing with the workers: each CTA runs slower,
# from memory, caches or shared cores) and where the wall time went
# (exec.Launch.Spread): outside the grid's run (launch and sync), and of
# the run's worker-time, lost waking the workers (late) and in the grid's
# tail (early); and last the speedup of the same work in plain Go split
# over as many goroutines (BenchmarkScaleGo: the machine's own ceiling).
# Needs only sh, awk and sort (and xz for a packed binary).
set -e
bin=${1:-.gpu/softscale.test}
[ $# -gt 0 ] && shift
ws=${*:-1 2 4 8 16}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
if [ ! -x "$bin" ] && [ -f "$bin.xz" ]; then
	xz -dkf "$bin.xz"
	chmod +x "$bin"
fi
cd "$(dirname "$0")/.."   # rt/soft: the benchmarks read testdata/
# parse turns a benchmark line into: kind class workers ns/op cpu-ns/op outside-% late-% early-%.
parse='/^BenchmarkScale(Go)?\// {
	n=$1; sub(/^BenchmarkScale(Go)?\//, "", n); sub(/-[0-9]+$/, "", n)
	for (i=5; i<NF; i+=2) m[$(i+1)]=$i
	print kind, n, w, $3, m["cpu-ns/op"], m["outside-%"]+0, m["late-%"]+0, m["early-%"]+0
}'
echo "cpus: $(getconf _NPROCESSORS_ONLN), hardware threads per core: $(awk -F'[,-]' '{ print NF }' /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo '?')"
out=$(mktemp)
for w in $ws; do
	for r in 1 2 3; do
		GOMAXPROCS=$w "$bin" -test.run '^$' -test.bench '^BenchmarkScale$' -test.benchtime 5x -test.count 1 -soft.workers "$w" |
			awk -v w="$w" -v kind=soft "$parse" >> "$out"
		GOMAXPROCS=$w "$bin" -test.run '^$' -test.bench '^BenchmarkScaleGo$' -test.benchtime 200ms -test.count 1 -soft.workers "$w" |
			awk -v w="$w" -v kind=go "$parse" >> "$out"
	done
	echo "workers=$w done" >&2
done
sort -k1,1 -k2,2 -k3,3n -k4,4n "$out" | awk '
	{ k=$1" "$2" "$3; line[k, ++c[k]]=$0; if (!(k in seen)) { seen[k]=1; keys[++nk]=k } }
	END {
		for (i=1; i<=nk; i++) {   # the median round of each
			k=keys[i]; split(line[k, int((c[k]+1)/2)], f, " ")
			ms[k]=f[4]/1e6; if (!((f[1]" "f[2]) in base)) base[f[1]" "f[2]]=ms[k]
		}
		printf "%-12s %8s %10s %8s %10s %9s %7s %7s %11s\n", "class", "workers", "ms/launch", "speedup", "cpu-ms", "outside%", "late%", "early%", "Go speedup"
		for (i=1; i<=nk; i++) {
			k=keys[i]; split(line[k, int((c[k]+1)/2)], f, " ")
			if (f[1] != "soft") continue
			g="go "f[2]" "f[3]; gs="-"
			if (g in ms) gs=sprintf("%.2fx", base["go "f[2]]/ms[g])
			printf "%-12s %8d %10.2f %7.2fx %10.2f %9.1f %7.1f %7.1f %11s\n", f[2], f[3], ms[k], base["soft "f[2]]/ms[k], f[5]/1e6, f[6], f[7], f[8], gs
		}
	}'
rm -f "$out"
