#!/bin/bash
# The one GPU call of fp12 (issue 12): NaN table, div sweeps, f64 .approx sweeps, SASS.
# Run from .gpu/fp12 holding fpapprox.cu, this script and soft.test (go test -tags cudarecord -c ./rt/soft).
set -u
W=/tmp/fp12; rm -rf $W; mkdir -p $W/out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -2
nvcc -O3 -arch=sm_90 -o $W/fpapprox fpapprox.cu 2>&1 | grep -v -i warning | head -20
cuobjdump -sass $W/fpapprox > $W/sass_all.txt
python3 - $W/sass_all.txt > $W/out/sass.txt <<'PY'
import sys, re
keep = False
for line in open(sys.argv[1]):
    m = re.match(r'\s+Function : (\S+)', line)
    if m: keep = m.group(1).startswith('k_')
    if keep: sys.stdout.write(line)
PY
( time timeout 200 $W/fpapprox $W/out ) 2>&1 | tail -4
cat $W/out/fpapprox.log | grep -v "model mismatch" | head -60
grep -c "model mismatch" $W/out/fpapprox.log
( time timeout 120 ./soft.test -test.run 'TestNaNTable$' -nan.record=$W/out/fpnan.txt.gz -test.v ) 2>&1 | tail -15
zcat $W/out/fpnan.txt.gz | grep -c . 
cd $W/out && tar cf - . | xz -6 -T8 > $OUT/fp12.tar.xz; ls -la $OUT
