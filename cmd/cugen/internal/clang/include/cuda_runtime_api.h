// cuda_runtime_api.h: part of cugen_clang.h, which cugen already includes.
#pragma clang system_header
#include "cugen_clang.h"
