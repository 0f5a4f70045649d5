// A stand-in libcuda.so.1 for rt/nccl's binding tests: the context calls
// rt/nccl's shim makes around each NCCL call (a per-thread context stack,
// as the driver keeps), each logged to $FAKE_NCCL_LOG so that the tests
// can count them. Our own code.
#include <stdio.h>
#include <stdlib.h>

static __thread void *stack[16];
static __thread int depth;

static void logctx(const char *what, void *ctx) {
	const char *path = getenv("FAKE_NCCL_LOG");
	if (!path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	fprintf(f, "cuda %s %p\n", what, ctx);
	fclose(f);
}

int cuCtxPushCurrent_v2(void *ctx) {
	if (!ctx) return 201; // CUDA_ERROR_INVALID_CONTEXT
	if (depth == 16) return 1;
	stack[depth++] = ctx;
	logctx("push", ctx);
	return 0;
}

int cuCtxPopCurrent_v2(void **ctx) {
	if (depth == 0) return 201;
	*ctx = stack[--depth];
	logctx("pop", *ctx);
	return 0;
}

int cuCtxGetCurrent(void **ctx) {
	*ctx = depth ? stack[depth - 1] : NULL;
	logctx("get", *ctx);
	return 0;
}

// cuCtxSetCurrent replaces the top of the stack (NULL pops it).
int cuCtxSetCurrent(void *ctx) {
	logctx("set", ctx);
	if (!ctx) {
		if (depth) depth--;
		return 0;
	}
	if (depth == 0) depth = 1;
	stack[depth - 1] = ctx;
	return 0;
}
