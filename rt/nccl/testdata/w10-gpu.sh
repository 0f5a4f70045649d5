#!/usr/bin/env bash
# w10-gpu.sh is one batched GPU run for three changes: rt/nccl's per-call
# cost (in place and out of place, Go against C), the one-rank device
# communicator (refused by the system NCCL 2.28.3, made by the pip wheel's
# 2.28.9), CUDA's special streams adopted by rt (rt/cgo's conformance
# suite, Adopt/special_streams) and examples/fftgemm with cuRAND. It writes
# each result to $OUT/summary.txt as it goes (default .gpu/w10-results),
# with full logs beside it.
#
#	rt/nccl/testdata/w10-gpu.sh build   # here, where Go is: .gpu/w10/bins.tar.xz (three test binaries)
#	rt/nccl/testdata/w10-gpu.sh run     # there, from the repository root, with .gpu/w10 carried
#
# NCCL_NVLS_ENABLE=0 stays set: NVLink multicast must stay off on shared machines.
set -u
cd "$(dirname "$0")/../../.." || exit 2
dir=.gpu/w10

build() {
	command -v go >/dev/null || { echo "w10-gpu.sh build: needs Go" >&2; exit 2; }
	local tmp
	tmp=$(mktemp -d) || exit 2
	go test -ldflags="-s -w" -c -o "$tmp/nccl.test" ./rt/nccl || exit 1
	go test -ldflags="-s -w" -c -o "$tmp/rt_cgo.test" ./rt/cgo || exit 1
	go test -ldflags="-s -w" -c -o "$tmp/fftgemm.test" ./examples/fftgemm || exit 1
	mkdir -p "$dir" && tar -C "$tmp" -cJf "$dir/bins.tar.xz" nccl.test rt_cgo.test fftgemm.test && rm -rf "$tmp" || exit 1
	echo "wrote $dir/bins.tar.xz ($(du -h "$dir/bins.tar.xz" | cut -f1)); run 'rt/nccl/testdata/w10-gpu.sh run' on the GPU machine"
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

run() {
	[ -f "$dir/bins.tar.xz" ] || { echo "w10-gpu.sh run: no $dir/bins.tar.xz; run 'rt/nccl/testdata/w10-gpu.sh build' where Go is" >&2; exit 2; }
	out=${OUT:-.gpu/w10-results}
	mkdir -p "$out/bin" || exit 2
	tar -C "$out/bin" -xJf "$dir/bins.tar.xz" || exit 2
	local bin sum status=0
	bin=$(cd "$out/bin" && pwd)
	sum="$out/summary.txt"
	: >"$sum"
	say() { echo "$*" | tee -a "$sum"; }
	export NCCL_NVLS_ENABLE=0 CUGEN_BACKEND=cuda
	local sys=/usr/lib/x86_64-linux-gnu/libnccl.so.2 pip
	pip=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -1)
	[ -n "$pip" ] || pip=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
	[ -f "${pip:-/nonexistent}" ] || pip=""
	say "== machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); system NCCL $sys; pip NCCL ${pip:-none}"

	# t label dir binary [VAR=value...] -- args: one test run, its verdict
	# and the lines it marks for the summary.
	t() {
		local label=$1 d=$2 b=$3 log rc
		shift 3
		# The binaries may travel in several runs (the tree that travels is limited).
		[ -x "$bin/$b" ] || { say "$label: not run here ($b not in this bins.tar.xz)"; return; }
		local env=()
		while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
		shift
		log="$out/$(echo "$label" | tr ' /()=|' '______').log"
		(cd "$d" && env ${env[@]+"${env[@]}"} "$bin/$b" -test.v -test.timeout 150s "$@") >"$log" 2>&1
		rc=$?
		[ $rc -ne 0 ] && status=1
		say "$(printf '%-44s pass %3d  fail %2d  skip %2d  exit %d' "$label" "$(grep -cE '^ *--- PASS' "$log")" \
			"$(grep -cE '^ *--- FAIL' "$log")" "$(grep -cE '^ *--- SKIP' "$log")" $rc)"
		grep -E '^ *--- (FAIL|SKIP)|^panic:' "$log" | sed "s|^|    $label: |" | tee -a "$sum"
		grep -hE 'DEVCOMM-ONE-RANK|^fftgemm on| *(noise|energy|y): +[0-9m]' "$log" | sed 's/^ *[a-z_]*\.go:[0-9]*: //' | awk '!seen[$0]++' | sed 's/^/    /' | tee -a "$sum"
	}

	say "== A/B: rt/nccl on the system NCCL, then on the pip wheel's"
	t "nccl system: context, devcomm, one rank" rt/nccl nccl.test CUGEN_NCCL_LIB=$sys -- \
		-test.run 'TestGPUCurrentContext|TestGPUDevComm|TestGPUOneRank|TestGPUErrors|TestGPUStreamOrder|TestShim'
	if [ -n "$pip" ]; then
		t "nccl pip: context, devcomm, one rank" rt/nccl nccl.test CUGEN_NCCL_LIB="$pip" -- \
			-test.run 'TestGPUCurrentContext|TestGPUDevComm|TestGPUOneRank|TestGPUStreamOrder'
	else
		say "nccl pip: no pip NCCL found (python3 -c 'import nvidia.nccl' failed)"
	fi

	say "== A: per-call cost, one rank, two float32s (5 interleaved runs of C and Go, median)"
	local cb="$out/bench_nccl" bench="$out/bench.txt"
	if [ ! -x "$bin/nccl.test" ]; then
		say "per-call cost: not run here (nccl.test not in this bins.tar.xz)"
	elif gcc -O2 -o "$cb" rt/nccl/testdata/bench_nccl.c "$sys" -L/usr/local/cuda/lib64 -lcudart \
		-Wl,-rpath,/usr/local/cuda/lib64 >"$out/bench_build.log" 2>&1; then
		: >"$bench"
		for i in 1 2 3 4 5; do
			"$cb" 200000 >>"$bench" 2>&1
			(cd rt/nccl && CUGEN_NCCL_LIB=$sys "$bin/nccl.test" -test.run '^$' -test.bench 'BenchmarkGPUAllReduce8B' \
				-test.benchtime 200000x) >>"$bench" 2>&1
		done
		local form c g
		for form in AllReduce8B AllReduce8BInPlace; do
			c=$(awk -v f="$form" '$1 == "C-NCCL" && $2 == f {print $4}' "$bench" | median)
			g=$(awk -v f="BenchmarkGPU$form" '{n=$1; sub(/-[0-9]+$/, "", n)} n == f {print $3}' "$bench" | median)
			say "$(printf 'PER-CALL %-20s Go %8s ns  C %8s ns  ratio %s' "$form" "$g" "$c" \
				"$(awk -v g="$g" -v c="$c" 'BEGIN {if (c > 0) printf "%.3f", g / c; else print "nan"}')")"
		done
	else
		say "building bench_nccl.c failed: see $out/bench_build.log"
		status=1
	fi

	say "== C: special streams (rt/cgo conformance suite, Adopt and Misuse) and fftgemm with cuRAND"
	t "rt/cgo conformance Adopt (special streams)" rt/cgo rt_cgo.test -- -test.run 'TestConformance$/Adopt'
	t "rt/cgo misuse" rt/cgo rt_cgo.test -- -test.run 'TestMisuse'
	t "examples/fftgemm (cuRAND, cuFFT, cuBLAS)" examples/fftgemm fftgemm.test -- -test.run 'TestNVIDIA|TestNoise|TestStandIn'

	say "== done: exit $status (logs in $out)"
	exit $status
}

case ${1:-} in
build) build ;;
run) run ;;
*) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
