// shim.h declares the small part of the CUDA driver API that rt/cgo uses and
// the cg_* wrappers that shim.c implements. No CUDA header is needed at build
// time: the typedefs below restate cuda.h (the authority for every value and
// layout here) and libcuda.so.1 is dlopen'ed at run time.
#ifndef CUGEN_RT_CGO_SHIM_H
#define CUGEN_RT_CGO_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;  // enum cudaError_enum
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;

// cg_* wrappers return an int: the CUresult in the low 16 bits, and a flag
// saying which step failed when it was not the named call itself.
#define CG_CODE(r) ((r) & 0xffff)
#define CG_PUSH_FAILED 0x10000  // cuCtxPushCurrent failed (bad CtxHandle)
#define CG_POP_FAILED 0x20000   // cuCtxPopCurrent failed after the call
#define CG_MISSING 0x40000      // the entry point is absent from this driver
#define CG_NOT_SUPPORTED 801    // CUDA_ERROR_NOT_SUPPORTED

// Symbols whose presence Go asks about (cg_has).
enum {
	CG_SYM_LIBRARY = 0,        // cuLibraryLoadData & co (CUDA 12.0)
	CG_SYM_KERNEL_NAME,        // cuKernelGetName (12.3)
	CG_SYM_KERNEL_PARAM_INFO,  // cuKernelGetParamInfo (12.4)
	CG_SYM_LAUNCH_EX,          // cuLaunchKernelEx (12.0)
	CG_SYM_FUNC_NAME,          // cuFuncGetName (12.3)
	CG_SYM_MODULE_ENUMERATE,   // cuModuleEnumerateFunctions (12.4)
	CG_SYM_LOADING_MODE,       // cuModuleGetLoadingMode (11.7)
	CG_SYM_LINK,               // cuLinkCreate_v2 & co
	CG_SYM_FUNC_PARAM_INFO,    // cuFuncGetParamInfo (12.4)
	CG_SYM_COUNT
};

// cg_open dlopens libcuda.so.1 and resolves every entry point. It returns
// 0, or -1 with a message in err (dlerror's text, or a missing core symbol).
int cg_open(char *err, size_t errlen);
int cg_has(int sym);
void cg_error_strings(int code, const char **name, const char **text);

int cg_init(void);
int cg_driver_version(int *v);
int cg_device_count(int *n);
int cg_device_name(int ord, char *buf, int len);
int cg_device_attribute(int ord, int attr, int *v);
int cg_device_total_mem(int ord, size_t *bytes);

int cg_primary_retain(int ord, CUcontext *ctx);
int cg_primary_release(int ord);
int cg_ctx_create(int ord, unsigned int flags, CUcontext *ctx);
int cg_ctx_destroy(CUcontext ctx);
int cg_ctx_set_current(CUcontext ctx);
int cg_ctx_get_current(CUcontext *ctx);
int cg_ctx_device(CUcontext ctx, int *ord);
int cg_ctx_synchronize(CUcontext ctx);

int cg_stream_create(CUcontext ctx, unsigned int flags, int priority, CUstream *s);
int cg_stream_destroy(CUcontext ctx, CUstream s);
int cg_stream_synchronize(CUcontext ctx, CUstream s);
int cg_stream_query(CUcontext ctx, CUstream s);
int cg_stream_ctx(CUstream s, CUcontext *ctx);

int cg_event_create(CUcontext ctx, unsigned int flags, CUevent *e);
int cg_event_record(CUcontext ctx, CUevent e, CUstream s);
int cg_event_synchronize(CUcontext ctx, CUevent e);
int cg_event_elapsed(CUcontext ctx, float *ms, CUevent start, CUevent end);
int cg_event_destroy(CUcontext ctx, CUevent e);

int cg_mem_get_info(CUcontext ctx, size_t *free_, size_t *total);
int cg_mem_alloc(CUcontext ctx, CUdeviceptr *p, size_t n);
int cg_mem_free(CUcontext ctx, CUdeviceptr p);
int cg_memcpy_htod(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n, CUstream s, int async);
int cg_memcpy_dtoh(CUcontext ctx, void *dst, CUdeviceptr src, size_t n, CUstream s, int async);
int cg_memcpy_dtod(CUcontext ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s, int async);
int cg_memset_d8(CUcontext ctx, CUdeviceptr dst, unsigned char v, size_t n, CUstream s, int async);

// The PTX compiler's options for a load or a link (CUjit_option), and the
// info and error log buffers, each loglen bytes (either may be NULL).
typedef struct {
	int target;     // CU_JIT_TARGET value (e.g. 90), 0 = from the context
	int max_regs;   // 0 = default
	int opt_level;  // -1 = default
	int line_info;
	int debug;
	int verbose;
} cg_jit_opts;

// Context-independent loading (CUDA 12).
int cg_library_load(CUlibrary *lib, const void *image, int preserved, const cg_jit_opts *o, char *info, char *err,
                    size_t loglen);
int cg_library_unload(CUlibrary lib);
int cg_library_kernel(CUlibrary lib, const char *name, CUkernel *k);
int cg_library_kernel_count(CUlibrary lib, unsigned int *n);
int cg_library_kernels(CUlibrary lib, CUkernel *ks, unsigned int n);
int cg_kernel_name(CUkernel k, const char **name);
int cg_library_global(CUcontext ctx, CUlibrary lib, const char *name, CUdeviceptr *p, size_t *bytes);
int cg_library_managed(CUcontext ctx, CUlibrary lib, const char *name, CUdeviceptr *p, size_t *bytes);
int cg_kernel_get_attribute(CUkernel k, int attr, int ord, int *v);
int cg_kernel_set_attribute(CUkernel k, int attr, int v, int ord);
int cg_library_warmup(CUcontext ctx, CUlibrary lib, unsigned int *loaded);

// Parameter layouts: cuKernelGetParamInfo for a CUkernel (k != NULL), else
// cuFuncGetParamInfo for the CUfunction f (both CUDA 12.4), in ctx.
int cg_param_info(CUcontext ctx, CUkernel k, CUfunction f, size_t i, size_t *off, size_t *size);

// Legacy per-context modules.
int cg_module_load(CUcontext ctx, CUmodule *mod, const void *image, const cg_jit_opts *o, char *info, char *err,
                   size_t loglen);
int cg_module_unload(CUcontext ctx, CUmodule mod);
int cg_module_function(CUcontext ctx, CUmodule mod, const char *name, CUfunction *f);
int cg_module_global(CUcontext ctx, CUmodule mod, const char *name, CUdeviceptr *p, size_t *bytes);
int cg_module_function_count(CUcontext ctx, CUmodule mod, unsigned int *n);
int cg_module_functions(CUcontext ctx, CUmodule mod, CUfunction *fs, unsigned int n);
int cg_func_name(CUfunction f, const char **name);
int cg_func_get_attribute(CUcontext ctx, CUfunction f, int attr, int *v);
int cg_func_set_attribute(CUcontext ctx, CUfunction f, int attr, int v);
int cg_loading_mode(int *mode);

// Launch. params/size is the packed parameter buffer (no Go pointers in it).
int cg_launch(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz,
              unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
              CUstream s, void *params, size_t size);
// cg_launch_ex is cuLaunchKernelEx with a cluster shape (cx, cy, cz all 0:
// none), the launch attributes that flags name, and a launch priority
// (0: the stream's).
#define CG_LAUNCH_COOPERATIVE 1  // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
#define CG_LAUNCH_PROGRAMMATIC 2 // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
int cg_launch_ex(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz,
                 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                 CUstream s, void *params, size_t size,
                 unsigned int cx, unsigned int cy, unsigned int cz, int flags, int priority);

// cg_launch_placed is cg_launch or, with a cluster, flags or a priority,
// cg_launch_ex, passing kernelParams: n pointers into params, at offs.
int cg_launch_placed(CUfunction f, CUcontext ctx, unsigned int gx, unsigned int gy, unsigned int gz,
                     unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                     CUstream s, void *params, const unsigned int *offs, unsigned int n,
                     unsigned int cx, unsigned int cy, unsigned int cz, int flags, int priority);

// cg_sym is the driver's entry point name, or NULL (for the shim's other
// files, which resolve what they use themselves).
void *cg_sym(const char *name);

// JIT linking. cg_link owns the option arrays and log buffers: cuLinkCreate
// requires its option values (the log buffers) to stay valid for the life of
// the link state.
typedef struct cg_link cg_link;
int cg_link_create(CUcontext ctx, const cg_jit_opts *o, size_t loglen, cg_link **l);
int cg_link_add(CUcontext ctx, cg_link *l, int kind, void *data, size_t size, const char *name);
int cg_link_complete(CUcontext ctx, cg_link *l, void **cubin, size_t *size);
const char *cg_link_info_log(cg_link *l);
const char *cg_link_error_log(cg_link *l);
void cg_link_destroy(cg_link *l);

#endif
