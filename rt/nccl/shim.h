// shim.h declares the cn_* wrappers around NCCL that shim.c implements.
// No NCCL or CUDA header is needed to build: shim.c restates the few
// types and values of nccl.h it uses (nccl.h is the authority), and
// libnccl.so.2 is dlopen'ed at run time. Handles and device addresses
// cross as uintptr_t: none of them is Go memory.
#ifndef CUGEN_RT_NCCL_SHIM_H
#define CUGEN_RT_NCCL_SHIM_H

#include <stddef.h>
#include <stdint.h>

// cn_* wrappers return an int: the ncclResult_t, or CN_CUDA_FAILED with
// the CUresult of the context switch around the call in the low 16 bits,
// or CN_MISSING when the loaded NCCL lacks the entry point.
#define CN_CUDA_FAILED 0x10000
#define CN_MISSING 0x20000

// cn_config carries the ncclConfig_t fields rt/nccl sets; 0 and NULL
// leave NCCL's default (NCCL_CONFIG_UNDEF_INT/PTR).
typedef struct {
	int blocking;  // 1 blocking, 0 nonblocking
	int min_ctas, max_ctas;
	int split_share;  // 1 to share, 0 for NCCL's default
	const char *net_name, *comm_name;
} cn_config;

// cn_open dlopens path and libcuda.so.1 and resolves the entry points;
// 0, or -1 with a message in err.
int cn_open(const char *path, char *err, size_t errlen);
int cn_version(int *v);
int cn_has(const char *sym);
const char *cn_error_string(int code);
const char *cn_last_error(uintptr_t comm);

int cn_get_unique_id(void *id128);
// cn_init_rank creates rank of nranks in ctx; *slot (C memory the caller
// frees) receives the communicator, at once or, in a group, at its end.
int cn_init_rank(uintptr_t ctx, uintptr_t *slot, int nranks, const void *id128, int rank, const cn_config *cfg);
// cn_init_all creates n ranks, rank i in ctxs[i], in one group.
int cn_init_all(int n, const uintptr_t *ctxs, uintptr_t *comms, const void *id128, const cn_config *cfg);
// cn_split: cfg NULL inherits the parent's configuration.
int cn_split(uintptr_t ctx, uintptr_t comm, int color, int key, uintptr_t *slot, const cn_config *cfg);
int cn_finalize(uintptr_t ctx, uintptr_t comm);
int cn_destroy(uintptr_t ctx, uintptr_t comm);
int cn_abort(uintptr_t ctx, uintptr_t comm);
int cn_async_error(uintptr_t comm, int *result);
int cn_comm_info(uintptr_t comm, int *rank, int *count, int *device);

// cn_op runs operation kind (rt/nccl's opKind order: AllReduce,
// Broadcast, Reduce, AllGather, ReduceScatter, AlltoAll, Send, Recv); peer
// is the root or the peer.
int cn_op(uintptr_t ctx, int kind, uintptr_t send, uintptr_t recv, size_t count, int dtype, int op, int peer,
          uintptr_t comm, uintptr_t stream);
// cn_set_current is cuCtxSetCurrent, for rt/nccl's tests.
int cn_set_current(uintptr_t ctx);
int cn_group_start(void);
int cn_group_end(void);

int cn_premulsum(uintptr_t ctx, int *op, const void *scalar, int dtype, uintptr_t comm);
int cn_redop_destroy(uintptr_t ctx, int op, uintptr_t comm);

int cn_mem_alloc(uintptr_t ctx, uintptr_t *p, size_t size);
int cn_mem_free(uintptr_t ctx, uintptr_t p);
int cn_window_register(uintptr_t ctx, uintptr_t comm, uintptr_t buf, size_t size, uintptr_t *slot, int flags);
int cn_window_deregister(uintptr_t ctx, uintptr_t comm, uintptr_t win);

// cn_devcomm_create_all creates n ranks' device communicators in one
// group, NCCL 2.28.3's layout (88 bytes each, out[i*88...]).
int cn_devcomm_create_all(int n, const uintptr_t *ctxs, const uintptr_t *comms, int lsa_barriers, void *out);
int cn_devcomm_destroy(uintptr_t ctx, uintptr_t comm, const void *devcomm);
// cn_devcomm_create_22807 and cn_devcomm_destroy_22807 are the same for
// one rank in NCCL 2.28.7 to 2.28.9's layouts (200 bytes), for rt/nccl's
// tests.
#define DEVCOMM_SIZE_22807 200
int cn_devcomm_create_22807(uintptr_t ctx, uintptr_t comm, int lsa_barriers, void *out);
int cn_devcomm_destroy_22807(uintptr_t ctx, uintptr_t comm, const void *devcomm);

#endif
