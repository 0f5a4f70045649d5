#!/usr/bin/env bash
# gpu-test.sh runs the prebuilt test binaries in .gpu/ on a GPU machine, which
# needs no Go toolchain, and prints a results table last.
#
# Build them where Go is, from the repository root:
#
#	mkdir -p .gpu && go test -c -o .gpu/cgo.test ./rt/cgo
#
# then run, on the GPU machine, from the repository root:
#
#	rt/cgo/gpu-test.sh [test flags, e.g. -test.run=TestLink]
#
# Full logs go to $GPU_TEST_LOGS (default .gpu/logs). The exit status is 0 only
# if every binary passed.
set -u
cd "$(dirname "$0")/../.." || exit 2
shopt -s nullglob
bins=(.gpu/*.test)
if [ ${#bins[@]} -eq 0 ]; then
	echo "gpu-test.sh: no test binaries in .gpu/; build them with: go test -c -o .gpu/cgo.test ./rt/cgo" >&2
	exit 2
fi
logs=${GPU_TEST_LOGS:-.gpu/logs}
mkdir -p "$logs"

echo "== machine"
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
else
	echo "nvidia-smi not found"
fi

status=0
table=$(mktemp)
for b in "${bins[@]}"; do
	name=$(basename "$b" .test)
	log="$logs/$name.log"
	echo "== $b -test.v $*"
	start=$(date +%s%N)
	"$b" -test.v "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	[ "$rc" -ne 0 ] && status=1
	# One row per test and subtest: result, name (subtests indented), time.
	awk -v bin="$name" '
		/^ *--- (PASS|FAIL|SKIP): / {
			match($0, /^ */); depth = RLENGTH / 4
			res = $2; sub(":", "", res)
			t = $NF; gsub(/[()]/, "", t)
			printf "%-8s %-5s %*s%s %s\n", bin, res, 2*depth, "", $3, t
		}' "$log" >>"$table"
	if ! grep -qE '^(PASS|FAIL|ok )' "$log"; then
		printf "%-8s %-5s %s\n" "$name" "CRASH" "exit status $rc (see $log)" >>"$table"
	fi
	printf "%-8s %-5s %s\n" "$name" "EXIT" "status $rc, ${secs}s" >>"$table"
done

echo
echo "== results"
printf "%-8s %-5s %s\n" "binary" "res" "test (time)"
cat "$table"
pass=$(grep -c ' PASS ' "$table")
fail=$(grep -cE ' (FAIL|CRASH) ' "$table")
skip=$(grep -c ' SKIP ' "$table")
echo "passed $pass, failed $fail, skipped $skip"
rm -f "$table"
exit $status
