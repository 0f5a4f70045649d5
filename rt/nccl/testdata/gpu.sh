#!/usr/bin/env bash
# gpu.sh checks rt/nccl on one GPU. It builds, where Go is, the test
# binaries, and runs them on a GPU machine, which needs no Go: every
# operation on one-rank communicators inside and outside graphs, the error
# paths, the device communicator, the DDP example, and the per-call cost of
# a small AllReduce against the same loop in C (bench_nccl.c, compiled
# there with gcc), as a ratio measured in one run. A table comes last.
#
#	rt/nccl/testdata/gpu.sh build   # here: .gpu/nccl/{nccl,ddp}.test
#	rt/nccl/testdata/gpu.sh run     # there, from the repository root, with .gpu/ carried
#
# Results and logs go to $OUT (default .gpu/nccl-results). NCCL_NVLS_ENABLE=0
# stays set: NVLink multicast must stay off on shared machines.
set -u
cd "$(dirname "$0")/../../.." || exit 2
bins=.gpu/nccl

build() {
	command -v go >/dev/null || { echo "gpu.sh build: needs Go" >&2; exit 2; }
	mkdir -p "$bins" || exit 2
	go test -c -o "$bins/nccl.test" ./rt/nccl || exit 1
	go test -c -o "$bins/ddp.test" ./examples/ddp || exit 1
	echo "built $bins/nccl.test and $bins/ddp.test; run 'rt/nccl/testdata/gpu.sh run' on the GPU machine"
}

# summary appends label's pass/fail/skip counts (from its log) to table.
summary() {
	local label=$1 log=$2 rc=$3
	table+=$(printf '%-34s pass %3d  fail %2d  skip %2d  exit %d' "$label" \
		"$(grep -cE '^ *--- PASS' "$log")" "$(grep -cE '^ *--- FAIL' "$log")" \
		"$(grep -cE '^ *--- SKIP' "$log")" "$rc")$'\n'
	[ "$rc" -ne 0 ] && status=1
	grep -E '^ *--- (FAIL|SKIP)|^panic:' "$log" | sed "s|^|$label: |"
}

# tests runs a test binary from its package directory: label dir binary [VAR=value...] -- args...
tests() {
	local label=$1 dir=$2 bin=$3 rc log
	shift 3
	local env=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	log="$out/$(echo "$label" | tr ' /()=' '_____').log"
	(cd "$dir" && env ${env[@]+"${env[@]}"} "$bin" -test.v "$@") >"$log" 2>&1
	rc=$?
	summary "$label" "$log" $rc
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

run() {
	[ -x "$bins/nccl.test" ] || { echo "gpu.sh run: no $bins/nccl.test; run 'rt/nccl/testdata/gpu.sh build' where Go is" >&2; exit 2; }
	out=${OUT:-.gpu/nccl-results}
	mkdir -p "$out" || exit 2
	local bin
	bin=$(cd "$bins" && pwd)
	export NCCL_NVLS_ENABLE=0 CUGEN_BACKEND=cuda
	status=0 table=""
	echo "== machine"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$out/machine.txt"
	ls -l /usr/lib/x86_64-linux-gnu/libnccl.so.2* 2>&1 | tee -a "$out/machine.txt"

	echo "== tests"
	tests "rt/nccl (system NCCL)" rt/nccl "$bin/nccl.test" -- -test.run 'GPU|Shim'
	tests "rt/nccl NCCL_CHECK_POINTERS=1" rt/nccl "$bin/nccl.test" NCCL_CHECK_POINTERS=1 -- -test.run 'TestGPUPointerCheck'
	local pip
	pip=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -1)
	[ -n "$pip" ] || pip=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
	[ -f "$pip" ] || pip=""
	if [ -n "$pip" ]; then
		tests "rt/nccl (pip NCCL)" rt/nccl "$bin/nccl.test" CUGEN_NCCL_LIB="$pip" -- -test.run 'TestGPUOneRank|TestGPUTypes|TestGPUErrors|TestGPUDevComm|TestGPUStreamOrder|TestGPUCurrentContext'
	fi
	tests "examples/ddp" examples/ddp "$bin/ddp.test" --

	echo "== per-call cost (one rank, two float32s; 5 interleaved runs of each)"
	local cbench="$out/bench_nccl"
	if gcc -O2 -o "$cbench" rt/nccl/testdata/bench_nccl.c /usr/lib/x86_64-linux-gnu/libnccl.so.2 \
		-L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/usr/local/cuda/lib64 >"$out/bench_build.log" 2>&1; then
		: >"$out/bench.txt"
		for i in 1 2 3 4 5; do
			CUGEN_NCCL_LIB=/usr/lib/x86_64-linux-gnu/libnccl.so.2 "$cbench" 200000 >>"$out/bench.txt" 2>&1
			(cd rt/nccl && CUGEN_NCCL_LIB=/usr/lib/x86_64-linux-gnu/libnccl.so.2 "$bin/nccl.test" -test.run '^$' \
				-test.bench 'BenchmarkGPUAllReduce8B' -test.benchtime 200000x) >>"$out/bench.txt" 2>&1
		done
		grep -E '^(C-NCCL|Benchmark)' "$out/bench.txt"
		for form in AllReduce8B AllReduce8BInPlace; do
			local c g
			c=$(awk -v f="$form" '$1 == "C-NCCL" && $2 == f {print $4}' "$out/bench.txt" | median)
			g=$(awk -v f="BenchmarkGPU$form" '{n=$1; sub(/-[0-9]+$/, "", n)} n == f {print $3}' "$out/bench.txt" | median)
			lines+=$(printf 'PER-CALL %-20s Go %8s ns  C %8s ns  ratio %s' "$form" "$g" "$c" "$(awk -v g="$g" -v c="$c" 'BEGIN {if (c > 0) printf "%.3f", g / c; else print "nan"}')")$'\n'
		done
	else
		echo "building bench_nccl.c failed: see $out/bench_build.log"
		status=1
	fi

	echo
	echo "== results ($out)"
	printf '%s' "${lines:-}"
	grep -h 'DEVCOMM-ONE-RANK' "$out"/*.log 2>/dev/null | sed 's/^ *[a-z_]*\.go:[0-9]*: //'
	printf '%s' "$table"
	exit $status
}

lines=""
case ${1:-} in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
