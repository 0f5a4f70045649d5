#!/bin/sh
# Regenerates softmax.ptx from softmax.cu with clang (no CUDA toolkit needed).
set -e
cd "$(dirname "$0")"
clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -Xclang -target-feature -Xclang +ptx70 -O3 -S -o softmax.ptx softmax.cu
