#!/bin/bash
# spfit recorder: from the repo root on the GPU machine,
#     bash .gpu/spfit/run.sh
# writes $OUT/spfit.tar.xz (k/NNN.out, status.jsonl, sass.txt, compile.log)
# and $OUT/spfit.log. The bundle (kernels, inputs, manifest) was generated
# by `go test ./rt/soft -run TestSpfitBundle -spfit.bundle DIR`.
set -u
D="$(cd "$(dirname "$0")" && pwd)"
W="$(mktemp -d)"
: "${OUT:?OUT must be set}"
tar -C "$W" -xJf "$D/bundle.tar.xz"
mkdir -p "$W/out"
{ nvcc --version | tail -n 2; nvidia-smi -L; } > "$OUT/spfit.log" 2>&1
timeout 175 python3 "$D/record.py" "$W/bundle" "$W/out" >> "$OUT/spfit.log" 2>&1
echo "record.py exit $?" >> "$OUT/spfit.log"
tar --exclude='*.cubin' -C "$W/out" -cJf "$OUT/spfit.tar.xz" k status.jsonl sass.txt compile.log
rm -rf "$W"
ls -l "$OUT"
tail -n 80 "$OUT/spfit.log"
