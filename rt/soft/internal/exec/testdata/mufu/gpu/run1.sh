#!/bin/bash
# GPU call 1 for issue 12 item 2 (mufu12): SASS, exhaustive checks, recordings.
set -u
cd "$(dirname "$0")"
W=/tmp/mufu; rm -rf $W; mkdir -p $W/out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
NV="nvcc -O3 -arch=sm_90 -std=c++17"
( $NV -cubin -o $W/forms.cubin forms.cu 2>&1 | grep -v -i warning | head -20; cuobjdump -sass $W/forms.cubin > $W/out/sass.txt ) &
$NV -cubin -o $W/rawsc.cubin rawsc.cu 2>&1 | head -20
cuobjdump -sass $W/rawsc.cubin > $W/out/sass_rawsc.txt
python3 patch.py $W/rawsc.cubin $W/rawsc_p.cubin | tee $W/out/patch.txt
cuobjdump -sass $W/rawsc_p.cubin > $W/out/sass_rawsc_patched.txt
$NV -o $W/mufu mufu.cu -lcuda 2>&1 | grep -v -i warning | head -40
wait
ls -la $W
timeout 150 $W/mufu $W/out $W/rawsc_p.cubin > $W/out/run.log 2>&1; echo "mufu rc=$?" | tee -a $W/out/run.log
(cd $W/out && tar cJf $OUT/txt.tar.xz *.txt *.log)
mkdir -p $W/data && mv $W/out/*.seq $W/out/*.res $W/out/*.bin $W/data/ 2>/dev/null
timeout 100 python3 pack.py $W/data $OUT
echo "=== SASS"
python3 sasssum.py $W/out/sass.txt
grep -E "MUFU|FMUL" $W/out/sass_rawsc_patched.txt | head -4
echo "=== checks"
cut -c1-150 $W/out/run.log
