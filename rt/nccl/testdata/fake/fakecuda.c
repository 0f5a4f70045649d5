// A stand-in libcuda.so.1 for rt/nccl's binding tests: the two calls
// rt/nccl's shim makes (it switches the rank's context around each NCCL
// call), logged to $FAKE_NCCL_LOG. Our own code.
#include <stdio.h>
#include <stdlib.h>

static void *stack[16];
static int depth;

static void logctx(const char *what, void *ctx) {
	const char *path = getenv("FAKE_NCCL_LOG");
	if (!path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	fprintf(f, "%s %p\n", what, ctx);
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
