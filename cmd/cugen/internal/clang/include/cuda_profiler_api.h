// cuda_profiler_api.h: cudaProfilerStart/Stop, declared with the runtime API.
#pragma clang system_header
#include "cugen_clang.h"
