// A stand-in libnccl.so.2 for rt/nccl's binding tests (TestShimWithFakeNCCL):
// NCCL's ABI (nccl.h's signatures and layouts), no communication. Every
// call appends a line to $FAKE_NCCL_LOG saying what it received; the
// test checks that rt/nccl passed what it meant to. Our own code.
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct {
	size_t size;
	unsigned int magic, version;
	int blocking, cgaClusterSize, minCTAs, maxCTAs;
	const char *netName;
	int splitShare, trafficClass;
	const char *commName;
	int collnetEnable, CTAPolicy, shrinkShare, nvlsCTAs, nChannelsPerNetPeer, nvlinkCentricSched;
} ncclConfig_t;

struct ncclComm {
	int rank, nranks, blocking, pending, async;
};
typedef struct ncclComm *ncclComm_t;

static char lastError[256];

static void logf_(const char *fmt, ...) {
	const char *path = getenv("FAKE_NCCL_LOG");
	if (!path) return;
	FILE *f = fopen(path, "a");
	if (!f) return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static void hex(char *out, const void *p, size_t n) {
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static const char *str(const char *s) { return s ? s : "(null)"; }

static int configInt(int v) { return v == INT_MIN ? -1 : v; }

int ncclGetVersion(int *v) {
	const char *e = getenv("FAKE_NCCL_VERSION");
	*v = e ? atoi(e) : 22803;
	return 0;
}

const char *ncclGetErrorString(int r) { return "fake error string"; }
const char *ncclGetLastError(ncclComm_t c) { return lastError; }

int ncclGetUniqueId(ncclUniqueId *id) {
	for (int i = 0; i < 128; i++) id->internal[i] = (char)(i * 3 + 1);
	logf_("getUniqueId");
	return 0;
}

static ncclComm_t newComm(int rank, int nranks, ncclConfig_t *c) {
	ncclComm_t comm = calloc(1, sizeof *comm);
	comm->rank = rank;
	comm->nranks = nranks;
	comm->blocking = c ? c->blocking : 1;
	if (!comm->blocking) comm->pending = 2; // two polls in progress, then done
	return comm;
}

// ncclUniqueId arrives by value: its bytes are logged as received.
int ncclCommInitRankConfig(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, ncclConfig_t *c) {
	char h[257];
	hex(h, id.internal, 128);
	logf_("init rank=%d nranks=%d id=%s size=%zu magic=%x version=%u blocking=%d minCTAs=%d maxCTAs=%d splitShare=%d netName=%s commName=%s cga=%d",
	      rank, nranks, h, c->size, c->magic, c->version, c->blocking, configInt(c->minCTAs), configInt(c->maxCTAs),
	      configInt(c->splitShare), str(c->netName), str(c->commName), configInt(c->cgaClusterSize));
	*out = newComm(rank, nranks, c);
	return c->blocking ? 0 : 7; // ncclInProgress
}

int ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *out, ncclConfig_t *c) {
	logf_("split color=%d key=%d config=%s", color, key, c ? "set" : "inherit");
	*out = color < 0 ? NULL : newComm(0, 1, c);
	return 0;
}

int ncclCommFinalize(ncclComm_t c) {
	logf_("finalize rank=%d", c->rank);
	return 0;
}

int ncclCommDestroy(ncclComm_t c) {
	logf_("destroy rank=%d", c->rank);
	free(c);
	return 0;
}

int ncclCommAbort(ncclComm_t c) {
	logf_("abort rank=%d", c->rank);
	free(c);
	return 0;
}

int ncclCommGetAsyncError(ncclComm_t c, int *r) {
	if (c->pending > 0) {
		c->pending--;
		*r = 7;
		return 0;
	}
	*r = c->async;
	return 0;
}

int ncclCommCount(ncclComm_t c, int *n) { *n = c->nranks; return 0; }
int ncclCommUserRank(ncclComm_t c, int *r) { *r = c->rank; return 0; }
int ncclCommCuDevice(ncclComm_t c, int *d) { *d = 0; return 0; }

// A count of 13 is refused (with a message); 99 poisons the communicator
// (an asynchronous error).
static int coll(const char *name, const void *s, void *r, size_t n, int dt, int op, int root, ncclComm_t c, void *stream) {
	logf_("%s send=%p recv=%p count=%zu dtype=%d op=%d root=%d rank=%d stream=%p", name, s, r, n, dt, op, root, c->rank, stream);
	if (n == 13) {
		snprintf(lastError, sizeof lastError, "fake: %s of 13 elements refused", name);
		return 4;
	}
	if (n == 99) {
		snprintf(lastError, sizeof lastError, "fake: a peer went away");
		c->async = 6;
	}
	return 0;
}

int ncclAllReduce(const void *s, void *r, size_t n, int dt, int op, ncclComm_t c, void *st) { return coll("AllReduce", s, r, n, dt, op, -1, c, st); }
int ncclBroadcast(const void *s, void *r, size_t n, int dt, int root, ncclComm_t c, void *st) { return coll("Broadcast", s, r, n, dt, -1, root, c, st); }
int ncclReduce(const void *s, void *r, size_t n, int dt, int op, int root, ncclComm_t c, void *st) { return coll("Reduce", s, r, n, dt, op, root, c, st); }
int ncclAllGather(const void *s, void *r, size_t n, int dt, ncclComm_t c, void *st) { return coll("AllGather", s, r, n, dt, -1, -1, c, st); }
int ncclReduceScatter(const void *s, void *r, size_t n, int dt, int op, ncclComm_t c, void *st) { return coll("ReduceScatter", s, r, n, dt, op, -1, c, st); }
int ncclAlltoAll(const void *s, void *r, size_t n, int dt, ncclComm_t c, void *st) { return coll("AlltoAll", s, r, n, dt, -1, -1, c, st); }
int ncclSend(const void *s, size_t n, int dt, int peer, ncclComm_t c, void *st) { return coll("Send", s, NULL, n, dt, -1, peer, c, st); }
int ncclRecv(void *r, size_t n, int dt, int peer, ncclComm_t c, void *st) { return coll("Recv", NULL, r, n, dt, -1, peer, c, st); }

int ncclGroupStart(void) { logf_("groupStart"); return 0; }
int ncclGroupEnd(void) { logf_("groupEnd"); return 0; }

static int nextOp = 5;
int ncclRedOpCreatePreMulSum(int *op, void *scalar, int dt, int residence, ncclComm_t c) {
	char h[17];
	hex(h, scalar, dt == 8 || dt == 4 || dt == 5 ? 8 : dt == 7 || dt == 2 || dt == 3 ? 4 : dt == 6 || dt == 9 ? 2 : 1);
	*op = nextOp++;
	logf_("premulsum dtype=%d scalar=%s residence=%d op=%d", dt, h, residence, *op);
	return 0;
}
int ncclRedOpDestroy(int op, ncclComm_t c) { logf_("redopDestroy op=%d", op); return 0; }

int ncclMemAlloc(void **p, size_t n) { *p = (void *)0x7f0000001000; logf_("memAlloc %zu", n); return 0; }
int ncclMemFree(void *p) { logf_("memFree %p", p); return 0; }

int ncclCommWindowRegister(ncclComm_t c, void *buf, size_t n, void **win, int flags) {
	logf_("windowRegister buf=%p size=%zu flags=%d", buf, n, flags);
	*win = (void *)0x7f0000002000;
	return 0;
}
int ncclCommWindowDeregister(ncclComm_t c, void *win) { logf_("windowDeregister %p", win); return 0; }

// NCCL 2.28.3's ncclDevCommRequirements, and its ncclDevComm filled as NCCL
// fills the fields kernels read.
typedef struct {
	void *resourceRequirementsList, *teamRequirementsList;
	_Bool lsaMultimem;
	int lsaBarrierCount;
} reqs_22803;

// 2.28.7's (GIN's fields added): 56 bytes, lsaBarrierCount at 24; its
// ncclDevComm is 200 bytes.
typedef struct {
	void *resourceRequirementsList, *teamRequirementsList;
	_Bool lsaMultimem;
	int barrierCount, lsaBarrierCount, railGinBarrierCount, lla2aBlocks, lla2aSlots;
	_Bool ginForceEnable;
	int ginContextCount, ginSignalCount, ginCounterCount;
} reqs_22807;

int ncclDevCommCreate(ncclComm_t c, const void *reqs, void *out) {
	int v;
	ncclGetVersion(&v);
	size_t size = 88;
	if (v >= 22807) {
		const reqs_22807 *req = reqs;
		logf_("devCommCreate rank=%d lsaMultimem=%d lsaBarrierCount=%d layout=22807", c->rank, req->lsaMultimem, req->lsaBarrierCount);
		size = 200;
	} else {
		const reqs_22803 *req = reqs;
		logf_("devCommCreate rank=%d lsaMultimem=%d lsaBarrierCount=%d", c->rank, req->lsaMultimem, req->lsaBarrierCount);
	}
	memset(out, 0xab, size);
	int *w = out;
	w[0] = c->rank;
	w[1] = c->nranks;
	w[3] = 0;
	w[4] = 1;
	return 0;
}
int ncclDevCommDestroy(ncclComm_t c, const void *d) {
	int v;
	ncclGetVersion(&v);
	const unsigned char *b = d;
	if (v >= 22807) logf_("devCommDestroy rank=%d first=%02x last=%02x", c->rank, b[8], b[199]);
	else logf_("devCommDestroy rank=%d first=%02x", c->rank, b[8]);
	return 0;
}
