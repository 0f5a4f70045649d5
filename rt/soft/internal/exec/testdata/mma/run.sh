#!/bin/bash
# Runs record.py on the GPU machine: bundle/ next to this script, results
# in $OUT/results.tar.xz, the summary last.
cd "$(dirname "$0")"
mkdir -p "$OUT/w"
python3 record.py bundle "$OUT/w" > "$OUT/log.txt" 2>&1
tar --exclude='*.cubin' -C "$OUT/w" -cJf "$OUT/results.tar.xz" k status.jsonl sass.txt
rm -rf "$OUT/w"
tail -n 70 "$OUT/log.txt"
