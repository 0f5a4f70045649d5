// shim_ext.h declares the cgx_* wrappers of shim_ext.c: the driver calls of
// rt's optional capabilities (graphs, stream dependencies and host
// functions, page-locked memory, memsets, 2-D and peer copies,
// stream-ordered allocation, occupancy). They follow shim.h's conventions:
// an int result with the CUresult in the low 16 bits and the CG_* flags, and
// the context made current around the call where one is given.
#ifndef CUGEN_RT_CGO_SHIM_EXT_H
#define CUGEN_RT_CGO_SHIM_EXT_H

#include "shim.h"

typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUgraphConditionalHandle;

// cgx_init resolves the entry points (once; cg_open must have succeeded).
void cgx_init(void);

// Entry points whose presence Go asks about (cgx_has).
enum {
	CGX_SYM_CAPTURE_TO_GRAPH = 0,  // cuStreamBeginCaptureToGraph (12.3)
	CGX_SYM_CONDITIONAL,           // cuGraphConditionalHandleCreate + cuGraphAddNode (12.3)
	CGX_SYM_COUNT
};
int cgx_has(int sym);

// Streams and events.
int cgx_stream_wait_event(CUcontext ctx, CUstream s, CUevent e, unsigned int flags);
int cgx_event_record_flags(CUcontext ctx, CUevent e, CUstream s, unsigned int flags);
int cgx_event_query(CUcontext ctx, CUevent e);
// cgx_launch_host_func queues a call of Go's cugenHostFunc(handle) on s.
int cgx_launch_host_func(CUcontext ctx, CUstream s, uintptr_t handle);
int cgx_priority_range(CUcontext ctx, int *least, int *greatest);
int cgx_stream_priority(CUcontext ctx, CUstream s, int *p);

// Memory.
int cgx_mem_host_alloc(CUcontext ctx, void **p, size_t size);
int cgx_mem_free_host(CUcontext ctx, void *p);
int cgx_memset_d16(CUcontext ctx, CUdeviceptr dst, unsigned short v, size_t n, CUstream s, int async);
int cgx_memset_d32(CUcontext ctx, CUdeviceptr dst, unsigned int v, size_t n, CUstream s, int async);
int cgx_memcpy_2d(CUcontext ctx, const void *src_host, CUdeviceptr src_dev, size_t src_pitch, void *dst_host,
                  CUdeviceptr dst_dev, size_t dst_pitch, size_t width, size_t height, CUstream s, int async);

// Stream-ordered allocation and pools.
int cgx_mem_alloc_async(CUcontext ctx, CUdeviceptr *p, size_t size, CUstream s, CUmemoryPool pool);
int cgx_mem_free_async(CUcontext ctx, CUdeviceptr p, CUstream s);
int cgx_mem_pool_create(int ord, size_t max_size, CUmemoryPool *pool);
int cgx_mem_pool_destroy(CUmemoryPool pool);
int cgx_device_mem_pool(int ord, CUmemoryPool *pool);
int cgx_mem_pool_get(CUmemoryPool pool, int attr, unsigned long long *v);
int cgx_mem_pool_set(CUmemoryPool pool, int attr, unsigned long long v);
int cgx_mem_pool_trim(CUmemoryPool pool, size_t keep);

// Peers.
int cgx_can_access_peer(int ord, int peer, int *can);
int cgx_enable_peer(CUcontext ctx, CUcontext peer);
int cgx_disable_peer(CUcontext ctx, CUcontext peer);
int cgx_memcpy_peer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n, CUstream s,
                    int async);
int cgx_p2p_attribute(int attr, int src, int dst, int *v);

// Occupancy of f (a CUkernel cast to CUfunction, or a legacy CUfunction) in ctx.
int cgx_occupancy(CUcontext ctx, CUfunction f, int block, size_t smem, int *n);
int cgx_potential_block(CUcontext ctx, CUfunction f, size_t smem, int limit, int *min_grid, int *block);

// Graphs.
int cgx_begin_capture(CUcontext ctx, CUstream s, int mode);
int cgx_begin_capture_to_graph(CUcontext ctx, CUstream s, CUgraph g, const CUgraphNode *deps, size_t n, int mode);
int cgx_end_capture(CUcontext ctx, CUstream s, CUgraph *g);
// cgx_capture_info writes the capture status and id, and up to cap of the
// nodes the stream's next captured work depends on into deps; *n is how
// many there are.
int cgx_capture_info(CUcontext ctx, CUstream s, int *status, unsigned long long *id, CUgraphNode *deps, size_t cap,
                     size_t *n);
int cgx_graph_create(CUcontext ctx, CUgraph *g);
int cgx_graph_destroy(CUgraph g);
int cgx_graph_nodes(CUgraph g, CUgraphNode *nodes, size_t *n);
int cgx_node_type(CUgraphNode node, int *type);
int cgx_add_empty(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphNode *node);
int cgx_add_child(CUgraph g, const CUgraphNode *deps, size_t n, CUgraph child, CUgraphNode *node);
int cgx_cond_create(CUcontext ctx, CUgraph g, unsigned int def, unsigned int flags, CUgraphConditionalHandle *h);
// cgx_add_conditional adds a conditional node; *bodies points at the
// driver's array of its size body graphs.
int cgx_add_conditional(CUcontext ctx, CUgraph g, const CUgraphNode *deps, size_t n, CUgraphConditionalHandle h,
                        int type, unsigned int size, CUgraphNode *node, CUgraph **bodies);
int cgx_instantiate(CUcontext ctx, CUgraph g, unsigned long long flags, CUgraphExec *x);
int cgx_exec_destroy(CUcontext ctx, CUgraphExec x);
// cgx_graph_launch launches x on s without making ctx current, unless the
// driver refuses that (then always with ctx current); on the NULL stream
// with ctx current.
int cgx_graph_launch(CUcontext ctx, CUgraphExec x, CUstream s);
int cgx_graph_upload(CUcontext ctx, CUgraphExec x, CUstream s);
// cgx_exec_kernel_set is cuGraphExecKernelNodeSetParams with the packed
// parameter buffer, for the CUkernel k in ctx, or (k NULL) the legacy
// function f. As cgx_graph_launch, it makes ctx current only if the driver
// asks for it.
int cgx_exec_kernel_set(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx, unsigned int gx,
                        unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                        unsigned int shmem, void *params, size_t size);
// cgx_exec_kernel_set_placed is cgx_exec_kernel_set for a placed kernel:
// kernelParams, n pointers into params at offs.
int cgx_exec_kernel_set_placed(CUgraphExec x, CUgraphNode node, CUkernel k, CUfunction f, CUcontext ctx,
                               unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                               unsigned int bz, unsigned int shmem, void *params, size_t size,
                               const unsigned int *offs, unsigned int n);

#endif
