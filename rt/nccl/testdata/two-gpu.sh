#!/usr/bin/env bash
# two-gpu.sh checks rt/nccl across two (or more) GPUs of one machine: one
# process driving both devices (InitAll: every operation, in and out of
# graphs, device communicators read back by a kernel, symmetric windows),
# one process per GPU launched by torchrun itself (its agent holding
# MASTER_PORT, as in production), the DDP example on every GPU, and
# AllReduce bus bandwidth over 8 KiB..1 GiB against PyTorch's
# torch.distributed.all_reduce on the same GPUs (goal: ratio >= 0.95). A
# table comes last.
#
#	rt/nccl/testdata/gpu.sh build        # here: .gpu/nccl/{nccl,ddp}.test
#	rt/nccl/testdata/two-gpu.sh run      # there, from the repository root, with .gpu/ carried
#
# Results and logs go to $OUT (default .gpu/nccl-two-gpu), each step's as it
# ends, the table last (also in $OUT/summary.txt). $CUGEN_NCCL_BINS names
# another folder of test binaries (examples/multigpu/two-gpu.sh passes its
# own). Every step runs under timeout, within $CUGEN_DEADLINE (seconds since
# the epoch; default 8 minutes from the start), so that the whole run ends
# inside one 10-minute call however a step hangs. NCCL_NVLS_ENABLE=0 stays
# set: NVLink multicast must stay off on shared machines.
set -u
cd "$(dirname "$0")/../../.." || exit 2
bins=${CUGEN_NCCL_BINS:-.gpu/nccl}
deadline=${CUGEN_DEADLINE:-$(($(date +%s) + 480))}

# limit is the seconds a step may take: at most $1, and what is left
# before the deadline less a few for the table.
limit() {
	local left=$((deadline - $(date +%s) - 5))
	[ "$left" -lt "$1" ] && set -- "$left"
	[ "$1" -lt 1 ] && set -- 1
	echo "$1"
}

# timed runs a command under timeout, with the step's limit first.
timed() {
	local t
	t=$(limit "$1")
	shift
	timeout -k 5 "$t" "$@"
	local rc=$?
	[ $rc -eq 124 ] && echo "two-gpu.sh: timed out after ${t}s: $*"
	return $rc
}

summary() {
	local label=$1 log=$2 rc=$3
	table+=$(printf '%-34s pass %3d  fail %2d  skip %2d  exit %d' "$label" \
		"$(grep -cE '^ *--- PASS' "$log")" "$(grep -cE '^ *--- FAIL' "$log")" \
		"$(grep -cE '^ *--- SKIP' "$log")" "$rc")$'\n'
	[ "$rc" -ne 0 ] && status=1
	grep -E '^ *--- (FAIL|SKIP)|^panic:' "$log" | sed "s|^|$label: |"
}

run() {
	[ -x "$bins/nccl.test" ] || { echo "two-gpu.sh: no $bins/nccl.test; run 'rt/nccl/testdata/gpu.sh build' where Go is" >&2; exit 2; }
	out=${OUT:-.gpu/nccl-two-gpu}
	mkdir -p "$out" || exit 2
	local bin ngpu torchrun python
	bin=$(cd "$bins" && pwd)
	export NCCL_NVLS_ENABLE=0 CUGEN_BACKEND=cuda
	status=0 table="" lines=""
	echo "== machine"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$out/machine.txt"
	nvidia-smi topo -m >>"$out/machine.txt" 2>&1
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
	[ "$ngpu" -ge 2 ] || { echo "two-gpu.sh: needs 2 GPUs, found $ngpu" >&2; exit 2; }
	torchrun=$(command -v torchrun || echo /opt/torch/.venv/bin/torchrun)
	python=$(command -v python3 || echo /opt/torch/.venv/bin/python)
	[ -x /opt/torch/.venv/bin/python ] && python=/opt/torch/.venv/bin/python
	[ -x "$torchrun" ] || { echo "two-gpu.sh: no torchrun" >&2; status=1; }

	echo "== one process, $ngpu GPUs; one process per GPU (the test's own launcher)"
	local log="$out/multi.log" rc
	(cd rt/nccl && timed 150 "$bin/nccl.test" -test.v -test.run 'TestGPUMultiDevice|TestGPUMultiProcess|TestGPUOneRank|TestGPUEveryOpInGraphs') >"$log" 2>&1
	summary "rt/nccl, $ngpu GPUs" "$log" $?

	echo "== one process per GPU, launched by torchrun"
	log="$out/torchrun.log"
	(cd rt/nccl && CUGEN_NCCL_TEST_CHILD=ops CUGEN_NCCL_TEST_BACKEND=cuda \
		timed 90 "$torchrun" --standalone --nproc-per-node "$ngpu" --no-python "$bin/nccl.test" -test.run '^$') >"$log" 2>&1
	rc=$?
	local ok
	ok=$(grep -cE '^(\[[^]]*\]:)?rank [0-9]+ ok' "$log") # torchrun may prefix "[rank0]:"
	table+=$(printf '%-34s ranks ok %d of %d  exit %d' "torchrun, $ngpu processes" "$ok" "$ngpu" $rc)$'\n'
	[ $rc -ne 0 ] || [ "$ok" -ne "$ngpu" ] && status=1 && tail -20 "$log"

	log="$out/ddp.log"
	if [ -x "$bin/ddp.test" ]; then
		echo "== examples/ddp on every GPU"
		(cd examples/ddp && timed 90 "$bin/ddp.test" -test.v) >"$log" 2>&1
		summary "examples/ddp" "$log" $?
	else
		echo "== examples/ddp: no $bins/ddp.test, not run"
		table+=$(printf '%-34s not built' "examples/ddp")$'\n'
	fi

	echo "== AllReduce bus bandwidth, $ngpu processes: rt/nccl vs torch.distributed (2 interleaved runs each)"
	: >"$out/busbw.txt"
	for i in 1 2; do
		(cd rt/nccl && CUGEN_NCCL_TEST_CHILD=busbw timed 60 "$torchrun" --standalone --nproc-per-node "$ngpu" --no-python "$bin/nccl.test" -test.run '^$') >>"$out/busbw.txt" 2>&1
		timed 60 "$torchrun" --standalone --nproc-per-node "$ngpu" rt/nccl/testdata/busbw.py >>"$out/busbw.txt" 2>&1
	done
	# The best of the runs per size, for each side.
	lines=$(awk '{sub(/^\[[^]]*\]:/, "")} # a torchrun prefix such as [rank0]:
		$1 == "BUSBW-GO" {if ($4 > g[$2]) g[$2] = $4; s[$2] = 1}
		$1 == "BUSBW-TORCH" {if ($4 > t[$2]) t[$2] = $4; s[$2] = 1}
		END {
			for (b in s) sizes[++n] = b + 0
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sizes[j] < sizes[i]) {x = sizes[i]; sizes[i] = sizes[j]; sizes[j] = x}
			for (i = 1; i <= n; i++) {
				b = sizes[i]; r = (t[b] > 0) ? g[b] / t[b] : 0
				printf "BUSBW %11d bytes  rt/nccl %8.2f GB/s  torch %8.2f GB/s  ratio %.3f%s\n", b, g[b], t[b], r, (r < 0.95 ? "  (below 0.95)" : "")
			}
		}' "$out/busbw.txt")
	[ -n "$lines" ] || { echo "no bandwidth figures: see $out/busbw.txt"; status=1; }

	{
		echo
		echo "== results ($out)"
		printf '%s\n' "$lines"
		printf '%s' "$table"
	} | tee "$out/summary.txt"
	exit $status
}

case ${1:-} in
run) run ;;
*) echo "usage: $0 run   (build with rt/nccl/testdata/gpu.sh build)" >&2; exit 2 ;;
esac
