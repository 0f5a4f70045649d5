// cooperative_groups/reduce.h: in cooperative_groups.h.
#pragma clang system_header
#include "../cooperative_groups.h"
