#!/usr/bin/env bash
# gpu-test.sh builds, where Go is, every test binary that can use the GPU,
# and runs them on a GPU machine, which needs no Go toolchain. It prints a
# results table last.
#
#	rt/cgo/gpu-test.sh build   # here: writes .gpu/bins.tgz (run from anywhere in the repository)
#	rt/cgo/gpu-test.sh run     # there, with .gpu/ copied along: unpacks and runs everything
#
# What run runs, each binary from its package directory with CUGEN_BACKEND=cuda:
#   - rt/cgo's tests, the rt.Driver conformance suite (TestConformance) among them,
#     then the suite and the path-independent tests again on the legacy path
#     (CUGEN_CUDA_LEGACY=1);
#   - every example package's tests (generated code on the GPU);
#   - rt/soft's corpus and instruction tests against the GPU (-tags cudarecord,
#     -corpus.backend=cuda): soft's references checked on hardware;
#   - the launch and graph benchmarks with -benchmem.
# The LAUNCH-COST, BREAKDOWN, GRAPH-*, PEER-COPY, ONE-LOAD, LOAD-COST, LOAD-MEM and IMAGE-CHOICE lines, and fftgemm's results, are
# repeated before the table. Full logs go to $GPU_TEST_LOGS (default
# .gpu/logs). The exit status is 0 only if every binary passed.
set -u
cd "$(dirname "$0")/../.." || exit 2

build() {
	command -v go >/dev/null || { echo "gpu-test.sh build: needs Go" >&2; exit 2; }
	local out
	out=$(mktemp -d) || exit 2
	: >"$out/MANIFEST"
	for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./rt/cgo ./examples/...); do
		dir=${pkg#github.com/cugen/cugen/}
		[ "$dir" = examples ] && continue # the freshness check reruns go generate: needs Go
		bin=$(echo "$dir" | tr / _).test
		go test -ldflags="-s -w" -c -o "$out/$bin" "./$dir" || exit 1
		echo "$bin $dir" >>"$out/MANIFEST"
	done
	go test -ldflags="-s -w" -tags cudarecord -c -o "$out/rt_soft_cudarecord.test" ./rt/soft || exit 1
	echo "rt_soft_cudarecord.test rt/soft" >>"$out/MANIFEST"
	local n
	n=$(wc -l <"$out/MANIFEST")
	mkdir -p .gpu && tar -C "$out" -czf .gpu/bins.tgz . && rm -rf "$out" || exit 1
	echo "wrote .gpu/bins.tgz ($(du -h .gpu/bins.tgz | cut -f1)): $n test binaries"
}

run() {
	[ -f .gpu/bins.tgz ] || { echo "gpu-test.sh run: no .gpu/bins.tgz; run 'rt/cgo/gpu-test.sh build' where Go is" >&2; exit 2; }
	local bins=.gpu/bin logs=${GPU_TEST_LOGS:-.gpu/logs}
	mkdir -p "$bins" "$logs" && tar -C "$bins" -xzf .gpu/bins.tgz || exit 2
	bins=$(cd "$bins" && pwd)
	echo "== machine"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "nvidia-smi not found"
	status=0 table="" lines=""
	one() { # label dir binary args... (environment from the caller)
		local label=$1 dir=$2 bin=$3 out rc
		shift 3
		out=$(cd "$dir" && CUGEN_BACKEND=cuda "$bins/$bin" -test.v "$@" 2>&1)
		rc=$?
		echo "$out" >"$logs/$(echo "$label" | tr '/ ()=' '_____').log"
		[ $rc -ne 0 ] && status=1
		echo "$out" | grep -E '^ *--- (FAIL|SKIP)|^panic:' | sed "s|^|$label: |"
		lines+=$(echo "$out" | grep -E '^(LAUNCH-COST|BREAKDOWN|GRAPH-|PEER-COPY|ONE-LOAD|LOAD-COST|LOAD-MEM|IMAGE-CHOICE|fftgemm on| *(energy|y): +max| *noise: +[0-9])' | awk '!seen[$0]++')$'\n'
		table+=$(printf '%-36s pass %3d  fail %2d  skip %2d  exit %d' "$label" \
			"$(echo "$out" | grep -cE '^ *--- PASS')" "$(echo "$out" | grep -cE '^ *--- FAIL')" \
			"$(echo "$out" | grep -cE '^ *--- SKIP')" $rc)$'\n'
	}
	while read -r bin dir; do
		case $bin in
		rt_cgo.test)
			one rt/cgo "$dir" "$bin"
			CUGEN_CUDA_LEGACY=1 one "rt/cgo (legacy path)" "$dir" "$bin" \
				-test.run 'TestConformance|TestStickyFaults|TestErrors|TestLegacy|TestLink|TestKernelAttributes|TestAsyncError|TestCluster|TestRtLaunchAllocs'
			;;
		rt_soft_cudarecord.test)
			one "rt/soft against the GPU" "$dir" "$bin" \
				-test.run 'TestInstrTable$|TestCorpus|TestContract|TestDebugTarget' -corpus.backend=cuda
			;;
		*) one "$dir" "$dir" "$bin" ;;
		esac
	done <"$bins/MANIFEST"
	bench=$(cd rt/cgo && CUGEN_BACKEND=cuda "$bins/rt_cgo.test" -test.run '^$' -test.bench 'BenchmarkLaunch|BenchmarkGraph|BenchmarkNodeUpdate' -test.benchmem 2>&1 | grep -E '^Benchmark')
	echo
	printf '%s' "$lines" | grep -v '^$'
	echo "$bench"
	echo
	echo "== results ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), CUGEN_BACKEND=cuda)"
	printf '%s' "$table"
	exit $status
}

case ${1:-} in
build) build ;;
run) run ;;
*) echo "usage: rt/cgo/gpu-test.sh build|run" >&2; exit 2 ;;
esac
