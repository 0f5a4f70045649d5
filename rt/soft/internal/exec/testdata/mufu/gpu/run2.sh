#!/bin/bash
# GPU call 2 for issue 12 item 2 (mufu12): sin/cos at 2^-25, model check.
set -u
cd "$(dirname "$0")"
W=/tmp/mufu2; rm -rf $W; mkdir -p $W/out
NV="nvcc -O3 -arch=sm_90 -std=c++17"
$NV -cubin -o $W/rawsc.cubin rawsc.cu 2>&1 | head -20
python3 patch.py $W/rawsc.cubin $W/rawsc_p.cubin
$NV -o $W/mufu2 mufu2.cu -lcuda 2>&1 | grep -v -i warning | head -20
timeout 120 $W/mufu2 $W/out $W/rawsc_p.cubin 2>&1 | tee $W/out/run2.log
python3 -c "import lzma,sys; d=open(sys.argv[1],'rb').read(); open(sys.argv[1]+'.xz','wb').write(lzma.compress(d,preset=6))" $W/out/sin_odd25.bin; cp $W/out/sin_odd25.bin.xz $W/out/run2.log $OUT/; ls -la $OUT
