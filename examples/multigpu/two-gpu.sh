#!/usr/bin/env bash
# two-gpu.sh runs cugen's two-GPU checks in one go. It builds, where Go is,
# the test binaries, and runs them on a machine with two GPUs, which needs
# no Go:
#
#	examples/multigpu/two-gpu.sh build   # here: .gpu/two-gpu.tar.xz (and .gpu/two-gpu-nccl.tar.xz)
#	examples/multigpu/two-gpu.sh run     # there, from the repository root, with .gpu/two-gpu.tar.xz carried
#
# When the binaries and the working tree exceed what one call carries,
# build splits them: multigpu.test in two-gpu.tar.xz, rt/nccl's in
# two-gpu-nccl.tar.xz; run then goes twice, each call carrying one archive,
# and each run does the steps its binaries allow (build says which).
#
# run, every step under timeout and the whole within $TWO_GPU_SECONDS
# (default 540) so that it fits one 10-minute call:
#  1. the machine: nvidia-smi (two GPUs expected; with one, the parts that
#     need two skip and say so, and rt/nccl's two-GPU run is not started),
#     the GPUs' topology, PyTorch's device count;
#  2. examples/multigpu's tests on the GPUs (CUGEN_BACKEND=cuda): one
#     library launched in both devices' primary and created contexts from
#     several goroutines (the ONE-LOAD line), peer access and copies, peer
#     kernels, a graph per device; then the one-library test again on the
#     legacy path (CUGEN_CUDA_LEGACY=1: a module per context, for contrast);
#  3. the same test binary on rt/soft with as many soft devices as GPUs,
#     and a table comparing every DIGEST line of the two runs;
#  4. a 256 MiB peer copy's bandwidth, device 1 to device 0: Go's
#     BenchmarkPeerCopy, CUDA's cudaMemcpyPeerAsync (testdata/peerbw.cu,
#     compiled there with nvcc) and PyTorch's Tensor.copy_
#     (testdata/peerbw.py), interleaved twice; the best of each and the
#     ratios;
#  5. rt/nccl/testdata/two-gpu.sh: collectives over two ranks in one
#     process and in two processes launched by torchrun, every operation in
#     and out of graphs, examples/ddp, AllReduce bus bandwidth against
#     torch.distributed (goal: ratio >= 0.95).
# Results go to $OUT (default .gpu/two-gpu-out), each step's as it ends:
# results.txt (the lines that matter and the tables), machine.txt,
# multigpu.log, peerbw.log, nccl.log. A short table comes last. The exit
# status is 0 only if every step passed. NCCL_NVLS_ENABLE=0 (and PyTorch's
# and NVSHMEM's multicast switches) stay set: NVLink multicast must stay
# off on shared machines.
set -u
cd "$(dirname "$0")/../.." || exit 2
archive=.gpu/two-gpu.tar.xz
ncclarchive=.gpu/two-gpu-nccl.tar.xz # when the binaries travel in two calls (build)
work=.gpu/two-gpu

build() {
	command -v go >/dev/null || { echo "two-gpu.sh build: needs Go" >&2; exit 2; }
	local tmp
	tmp=$(mktemp -d) || exit 2
	go test -ldflags="-s -w" -c -o "$tmp/multigpu.test" ./examples/multigpu || exit 1
	go test -ldflags="-s -w" -c -o "$tmp/nccl.test" ./rt/nccl || exit 1
	go test -ldflags="-s -w" -c -o "$tmp/ddp.test" ./examples/ddp || exit 1
	mkdir -p .gpu || exit 2
	local tree size mib=$((1 << 20))
	tree=$( (git ls-files -z; git ls-files -z -o --exclude-standard) | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
	# A call carries at most 64 MiB with the working tree (and refuses a
	# little below that: keep 2 MiB spare). If the three binaries do not
	# fit, multigpu.test goes in $archive and rt/nccl's in $ncclarchive,
	# for two calls, each carrying one of them (and ddp.test is left out
	# where even that does not fit).
	rm -f "$archive" "$ncclarchive"
	tar -C "$tmp" -cJf "$archive" multigpu.test nccl.test ddp.test || exit 1
	size=$(stat -c %s "$archive")
	if [ $((tree + size)) -gt $((61 * mib)) ]; then
		echo "two-gpu.sh build: all three binaries would make the carry $(((tree + size) / mib)) MiB; splitting them over two calls"
		tar -C "$tmp" -cJf "$archive" multigpu.test || exit 1
		tar -C "$tmp" -cJf "$ncclarchive" nccl.test ddp.test || exit 1
		if [ $((tree + $(stat -c %s "$ncclarchive"))) -gt $((61 * mib)) ]; then
			echo "two-gpu.sh build: with examples/ddp the second carry would be too large; leaving ddp.test out"
			tar -C "$tmp" -cJf "$ncclarchive" nccl.test || exit 1
		fi
		size=$(stat -c %s "$archive")
	fi
	rm -rf "$tmp"
	echo "wrote $archive ($((size / 1024)) KiB; $(tar -tJf "$archive" | tr '\n' ' ')); with the working tree," \
		"$(((tree + size) / mib)) MiB of the 64 MiB a call carries."
	if [ -f "$ncclarchive" ]; then
		echo "wrote $ncclarchive ($(($(stat -c %s "$ncclarchive") / 1024)) KiB; $(tar -tJf "$ncclarchive" | tr '\n' ' '))."
		echo "There: two calls of examples/multigpu/two-gpu.sh run, the first with carry [\"$archive\"], the second with carry [\"$ncclarchive\"]"
	else
		echo "There: examples/multigpu/two-gpu.sh run, with carry [\"$archive\"]"
	fi
}

# limit is the seconds a step may take: at most $1, and what is left
# before the deadline less a few for the table.
limit() {
	local left=$((deadline - $(date +%s) - 10))
	[ "$left" -lt "$1" ] && set -- "$left"
	[ "$1" -lt 1 ] && set -- 1
	echo "$1"
}

# timed runs a command under timeout with the step's limit first; a
# timeout is said in the output.
timed() {
	local t rc
	t=$(limit "$1")
	shift
	timeout -k 5 "$t" "$@"
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "two-gpu.sh: timed out after ${t}s: $*"
	return $rc
}

# say prints lines and appends them to results.txt.
say() { printf '%s\n' "$@" | tee -a "$res"; }

# keep appends a step's log to one of $OUT's logs, under a heading.
keep() { { echo "===== $2"; cat "$1"; echo; } >>"$out/$3"; }

# summary adds a test run's pass/fail/skip counts to the table and prints
# its failures and skips.
summary() {
	local label=$1 log=$2 rc=$3 line
	line=$(printf '%-40s pass %3d  fail %2d  skip %2d  exit %d' "$label" \
		"$(grep -cE '^ *--- PASS' "$log")" "$(grep -cE '^ *--- FAIL' "$log")" "$(grep -cE '^ *--- SKIP' "$log")" "$rc")
	table+=$line$'\n'
	[ "$rc" -ne 0 ] && status=1
	grep -E '^ *--- (FAIL|SKIP)|^panic:|^two-gpu.sh: timed out' "$log" | sed "s|^|$label: |" | head -20
	echo "$line" >>"$res"
}

# step runs examples/multigpu's test binary: label log [VAR=value...] -- args...
step() {
	local label=$1 log=$2
	shift 2
	local env=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	(cd examples/multigpu && env ${env[@]+"${env[@]}"} timeout -k 5 "$(limit 150)" "$bin/multigpu.test" "$@") >"$log" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && echo "two-gpu.sh: timed out: $label" >>"$log"
	keep "$log" "$label" multigpu.log
	summary "$label" "$log" $rc
}

# best is the highest GB/s of a kind of PEER-BW line in a log.
best() { awk -v k="$1" '$1 == k && $5 + 0 > b {b = $5 + 0} END {if (b > 0) printf "%.2f", b}' "$2"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.3f", a / b; else print "n/a"}'; }

run() {
	[ -f "$archive" ] || [ -f "$ncclarchive" ] || { echo "two-gpu.sh run: no $archive or $ncclarchive; run 'examples/multigpu/two-gpu.sh build' where Go is" >&2; exit 2; }
	local start=$(date +%s)
	deadline=$((start + ${TWO_GPU_SECONDS:-540}))
	export CUGEN_DEADLINE=$deadline NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
	out=${OUT:-.gpu/two-gpu-out}
	res=$out/results.txt
	mkdir -p "$out" "$work/bin" || exit 2
	: >"$res"
	local a
	for a in "$archive" "$ncclarchive"; do
		[ -f "$a" ] || continue
		tar -C "$work/bin" -xJf "$a" 2>/dev/null ||
			python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$a" "$work/bin" || exit 2
	done
	bin=$(cd "$work/bin" && pwd)
	status=0 table=""
	local python=python3
	[ -x /opt/torch/.venv/bin/python3 ] && python=/opt/torch/.venv/bin/python3

	echo "== machine"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$out/machine.txt"
	nvidia-smi topo -m >>"$out/machine.txt" 2>&1
	timed 60 "$python" -c 'import torch; print("torch", torch.__version__, "sees", torch.cuda.device_count(), "GPUs")' 2>&1 | tail -1 | tee -a "$out/machine.txt"
	local ngpu gpu
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
	[ "$ngpu" -ge 1 ] || { echo "two-gpu.sh: nvidia-smi shows no GPU" >&2; exit 2; }
	say "GPUs: $ngpu × ${gpu:-?}"
	[ "$ngpu" -ge 2 ] || say "ONE GPU: not a two-GPU run. The parts that need two devices skip and say so; rt/nccl's two-GPU run is not started."

	digestline="" bwline=""
	if [ ! -x "$bin/multigpu.test" ]; then
		say "examples/multigpu: not in this call's binaries (the other call of two runs it)"
	else
		echo "== examples/multigpu on the GPUs"
		step "examples/multigpu, cuda" "$work/cuda.log" CUGEN_BACKEND=cuda -- -test.v
		say "$(grep -E '^(ONE-LOAD|NOTE|peer):' "$work/cuda.log")"
		step "examples/multigpu, cuda, legacy path" "$work/legacy.log" CUGEN_BACKEND=cuda CUGEN_CUDA_LEGACY=1 -- -test.v -test.run TestOneLibrary
		say "$(grep -E '^ONE-LOAD:' "$work/legacy.log" | sed 's/^ONE-LOAD:/ONE-LOAD (CUGEN_CUDA_LEGACY=1, for contrast):/')"

		echo "== examples/multigpu on rt/soft, $ngpu soft devices"
		step "examples/multigpu, soft ($ngpu devices)" "$work/soft.log" CUGEN_BACKEND=soft CUGEN_SOFT_DEVICES="$ngpu" -- -test.v
		local digests
		digests=$(awk '$1 == "DIGEST" {if (FILENAME == ARGV[1]) c[$2] = $3; else s[$2] = $3; n[$2] = 1}
			END {
				for (k in n) {
					v = (k in c) && (k in s) ? (c[k] == s[k] ? "identical" : "DIFFERENT") : ((k in c) ? "cuda only" : "soft only")
					printf "%-40s %-14s %-14s %s\n", k, (k in c) ? substr(c[k], 1, 12) : "-", (k in s) ? substr(s[k], 1, 12) : "-", v
				}
			}' "$work/cuda.log" "$work/soft.log" | sort)
		say "== digests: cuda and soft, the same programs ($ngpu devices each)" "$(printf '%-40s %-14s %-14s %s' output cuda soft '')" "$digests"
		local same diff only
		same=$(grep -c ' identical$' <<<"$digests")
		diff=$(grep -c ' DIFFERENT$' <<<"$digests")
		only=$(grep -cE ' (cuda|soft) only$' <<<"$digests")
		digestline="DIGESTS: $((same + diff)) compared, $same identical, $diff different; $only on one side only"
		[ "$diff" -eq 0 ] && [ "$((same + diff))" -gt 0 ] || status=1
		say "$digestline"

		echo "== peer-copy bandwidth: Go, C (nvcc), PyTorch"
		local bytes=$((256 << 20)) copies=50 pbw="$work/peerbw.log" cbin="$work/peerbw"
		: >"$pbw"
		local nvcc
		nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
		timed 120 "$nvcc" -O2 -o "$cbin" examples/multigpu/testdata/peerbw.cu >>"$pbw" 2>&1 || { echo "nvcc failed: see peerbw.log"; cbin=""; }
		for i in 1 2; do
			(cd examples/multigpu && CUGEN_BACKEND=cuda CUGEN_PEER_BYTES=$bytes timed 60 "$bin/multigpu.test" \
				-test.run '^$' -test.bench BenchmarkPeerCopy -test.benchtime ${copies}x) >>"$pbw" 2>&1
			[ -n "$cbin" ] && timed 60 "$cbin" $bytes $copies >>"$pbw" 2>&1
			timed 90 "$python" examples/multigpu/testdata/peerbw.py $bytes $copies >>"$pbw" 2>&1
		done
		keep "$pbw" "peer-copy bandwidth" peerbw.log
		say "$(grep -E '^PEER-BW' "$pbw")"
		local g c p
		g=$(best PEER-BW: "$pbw") c=$(best PEER-BW-C: "$pbw") p=$(best PEER-BW-TORCH: "$pbw")
		bwline="PEER-BW best of 2 × $copies copies of $bytes bytes: Go ${g:-n/a} GB/s, C ${c:-n/a}, PyTorch ${p:-n/a}; Go/C $(ratio "$g" "$c"), Go/PyTorch $(ratio "$g" "$p")"
		[ -n "$g" ] || status=1
		say "$bwline"
	fi

	local nccllines=""
	if [ ! -x "$bin/nccl.test" ]; then
		table+=$(printf '%-40s not run: nccl.test is in the other call' "rt/nccl two-gpu.sh")$'\n'
	elif [ "$ngpu" -ge 2 ]; then
		echo "== rt/nccl/testdata/two-gpu.sh"
		local nlog="$work/nccl-run.log"
		rm -rf "$work/nccl"
		# Its own steps end 20 s before this one's deadline, so that its
		# table is printed before the timeout below.
		OUT="$work/nccl" CUGEN_NCCL_BINS="$work/bin" CUGEN_DEADLINE=$((deadline - 20)) \
			timed 600 rt/nccl/testdata/two-gpu.sh run >"$nlog" 2>&1
		local rc=$?
		cat "$nlog"
		keep "$nlog" "rt/nccl/testdata/two-gpu.sh run (exit $rc)" nccl.log
		for f in "$work"/nccl/*; do [ -f "$f" ] && keep "$f" "$(basename "$f")" nccl.log; done
		[ $rc -ne 0 ] && status=1
		nccllines=$(sed -n '/^== results/,$p' "$nlog" | tail -n +2)
		table+=$(printf '%-40s exit %d' "rt/nccl two-gpu.sh" $rc)$'\n'
		printf '%s\n' "$nccllines" >>"$res"
	else
		table+=$(printf '%-40s not run: one GPU' "rt/nccl two-gpu.sh")$'\n'
	fi

	local oneload
	oneload=$(grep -E '^ONE-LOAD' "$res")
	{
		echo
		echo "== results ($ngpu × ${gpu:-?}, $(($(date +%s) - start)) s; $out)"
		echo "$oneload"
		echo "$digestline"
		echo "$bwline"
		[ -n "$nccllines" ] && grep -E '^BUSBW' <<<"$nccllines"
		printf '%s' "$table"
	} | tee -a "$res"
	exit $status
}

case ${1:-} in
build) build ;;
run) run ;;
*) echo "usage: examples/multigpu/two-gpu.sh build|run" >&2; exit 2 ;;
esac
