// sm_35_intrinsics.h: part of cugen_clang.h, which cugen already includes.
#include "cugen_clang.h"
