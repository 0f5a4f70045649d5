#pragma once
#include "../../common.h"
#ifndef ATTN_THREADS
#define ATTN_THREADS 256
#endif
#define KERNEL(name) extern "C" __global__ void __launch_bounds__(ATTN_THREADS) name
KERNEL(attention)(floatN *out, const floatN *qkv, int T) {}
