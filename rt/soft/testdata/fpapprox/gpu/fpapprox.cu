// fpapprox.cu: records div.approx/div.full .f32 and the f64 .approx forms
// on the GPU (issue 12, fp12). Build: nvcc -O3 -arch=sm_90 -o fpapprox fpapprox.cu
// Run: ./fpapprox OUTDIR. The sweeps are defined identically in
// rt/soft/fpapprox_test.go (gen, sm64); see ../NOTES.md.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__host__ __device__ inline uint64_t sm64(uint64_t x) {
	uint64_t z = x + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// ---- div sweeps ----
#define NSW 5
__constant__ uint32_t A8[8] = {0x3f800000, 0x3fc00000, 0x3fffffff, 0x3f800001, 0x40490fdb, 0x3f3504f3, 0xc0a00000, 0x3faaaaab};
__constant__ uint32_t B8[8] = {0x3f800000, 0x3fc00000, 0x3fffffff, 0x3f800001, 0x40490fdb, 0x3f3504f3, 0x40400000, 0x3faaaaab};
__constant__ uint32_t M8[8] = {0, 1, 0x7fffff, 0x400000, 0x2aaaab, 0x555555, 0x000fff, 0x7ff000};
__constant__ uint32_t G4[4] = {0, 1, 253, 254};
static const uint64_t SWLEN[NSW] = {8ull << 23, 8ull << 23, 1ull << 24, 1ull << 24, 4ull << 23};

__device__ inline uint32_t edgeval(uint32_t k) { return (k >> 11 & 1) << 31 | (k & 255) << 23 | M8[k >> 8 & 7]; }

__device__ inline void gen(int s, uint64_t i, uint32_t &a, uint32_t &b) {
	switch (s) {
	case 0: b = 0x3f800000u | (uint32_t)(i & 0x7fffff); a = A8[i >> 23]; break;
	case 1: a = 0x3f800000u | (uint32_t)(i & 0x7fffff); b = B8[i >> 23]; break;
	case 2: { uint64_t m = sm64(i + (2ull << 40)); a = (uint32_t)m; b = (uint32_t)(m >> 32); break; }
	case 3: a = edgeval((uint32_t)(i & 4095)); b = edgeval((uint32_t)(i >> 12)); break;
	default: {
		uint64_t m = sm64(i + (4ull << 40));
		b = (uint32_t)(m >> 63) << 31 | G4[i >> 23] << 23 | (uint32_t)(i & 0x7fffff);
		a = (uint32_t)m;
	}
	}
}

template <int OP> __device__ inline float divop(float a, float b) {
	float r;
	if (OP == 0) asm volatile("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	if (OP == 1) asm volatile("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	if (OP == 2) asm volatile("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	if (OP == 3) asm volatile("div.full.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	return r;
}

__device__ inline float rcpftz(float x) { float r; asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
__device__ inline float mulftz(float x, float y) { float r; asm volatile("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }
__device__ inline float mulrn(float x, float y) { float r; asm volatile("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); return r; }

// The models read off the SASS (sass.txt of ../mufu); the ftz ones are guesses this run checks.
template <int OP> __device__ inline float divmodel(float a, float b) {
	if (OP == 0) {
		if (!(fabsf(b) >= 1.175494350822287508e-38f)) { b = mulrn(b, 16777216.f); a = mulrn(a, 16777216.f); }
		return mulrn(rcpftz(b), a);
	}
	if (OP == 1) return mulftz(rcpftz(b), a);
	if (OP == 2) {
		bool big = fabsf(b) > 8.50705917302346158658e+37f, tiny = !(fabsf(b) >= 1.175494350822287508e-38f);
		if (big) { b = mulrn(b, 0.25f); a = mulrn(a, 0.25f); }
		if (tiny) { b = mulrn(b, 16777216.f); a = mulrn(a, 16777216.f); }
		return mulrn(rcpftz(b), a);
	}
	bool big = fabsf(b) > 8.50705917302346158658e+37f;
	if (big) { b = mulftz(b, 0.25f); a = mulftz(a, 0.25f); }
	return mulftz(rcpftz(b), a);
}

__device__ inline uint32_t ftzb(uint32_t x) { return (x & 0x7f800000) == 0 ? x & 0x80000000 : x; }
__device__ inline int64_t ord32(uint32_t x) { return (x >> 31) ? -(int64_t)(x & 0x7fffffff) : (int64_t)x; }

struct DivStats {
	unsigned long long n, exact, hist[5], maxulp, nanmis, bothnan, modelmis;
};

#define MAXMIS 2048
template <int OP>
__global__ void divsweep(int s, uint64_t len, unsigned long long *hash, DivStats *st, uint32_t *mis, unsigned int *nmis) {
	unsigned long long exact = 0, hist[5] = {0}, maxulp = 0, nanmis = 0, bothnan = 0, modelmis = 0, n = 0, hsum = 0;
	uint64_t base = (uint64_t)blockIdx.x << 16;
	for (uint64_t i = base + threadIdx.x; i < base + 65536 && i < len; i += blockDim.x) {
		uint32_t ab, bb;
		gen(s, i, ab, bb);
		float a = __uint_as_float(ab), b = __uint_as_float(bb);
		uint32_t r = __float_as_uint(divop<OP>(a, b));
		uint32_t m = __float_as_uint(divmodel<OP>(a, b));
		if (r != m) {
			modelmis++;
			unsigned int k = atomicAdd(nmis, 1u);
			if (k < MAXMIS) { mis[4 * k] = ab; mis[4 * k + 1] = bb; mis[4 * k + 2] = r; mis[4 * k + 3] = m; }
		}
		bool ftz = OP == 1 || OP == 3;
		uint32_t fa = ftz ? ftzb(ab) : ab, fb = ftz ? ftzb(bb) : bb;
		uint32_t ref = __float_as_uint((float)((double)__uint_as_float(fa) / (double)__uint_as_float(fb)));
		if (ftz) ref = ftzb(ref);
		n++;
		bool rn = (r & 0x7fffffff) > 0x7f800000, fn = (ref & 0x7fffffff) > 0x7f800000;
		if (r == ref) exact++;
		if (rn && fn) bothnan++;
		else if (rn != fn) nanmis++;
		else {
			int64_t d = ord32(r) - ord32(ref);
			unsigned long long u = d < 0 ? -d : d;
			hist[u > 4 ? 4 : u]++;
			if (u > maxulp) maxulp = u;
		}
		hsum += sm64((uint64_t)r ^ sm64(i));
	}
	for (int o = 16; o; o >>= 1) hsum += __shfl_down_sync(0xffffffff, hsum, o);
	if ((threadIdx.x & 31) == 0) atomicAdd(&hash[base >> 20], hsum);
	atomicAdd(&st->n, n);
	atomicAdd(&st->exact, exact);
	for (int k = 0; k < 5; k++) atomicAdd(&st->hist[k], hist[k]);
	atomicMax(&st->maxulp, maxulp);
	atomicAdd(&st->nanmis, nanmis);
	atomicAdd(&st->bothnan, bothnan);
	atomicAdd(&st->modelmis, modelmis);
}

__device__ inline uint64_t samplei(uint64_t len, int k) { return (uint64_t)k * (len / 1024) + k % 7; }

template <int OP> __global__ void divsamples(int s, uint64_t len, uint32_t *out) {
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= 1024) return;
	uint32_t ab, bb;
	gen(s, samplei(len, k), ab, bb);
	out[k] = __float_as_uint(divop<OP>(__uint_as_float(ab), __uint_as_float(bb)));
}

// ---- f64 .approx over all high words ----
template <int OP> __device__ inline double f64op(double x) {
	double r;
	if (OP == 0) asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
	if (OP == 1) asm volatile("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
	if (OP == 2) asm volatile("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x));
	return r;
}

__device__ inline uint64_t lo_of(int op, uint32_t hi) { return op == 2 ? (uint32_t)sm64(hi) : 0; }

template <int OP>
__global__ void f64sweep(unsigned long long *hash, unsigned long long *cnt, uint32_t *tab, uint32_t tabBase, uint32_t tabLen) {
	unsigned long long lodep = 0, lownz = 0, hsum = 0;
	uint64_t base = (uint64_t)blockIdx.x << 16;
	for (uint64_t h = base + threadIdx.x; h < base + 65536; h += blockDim.x) {
		uint32_t hi = (uint32_t)h;
		uint64_t xb = (uint64_t)hi << 32 | lo_of(OP, hi);
		uint64_t r = __double_as_longlong(f64op<OP>(__longlong_as_double(xb)));
		if (OP != 2) {
			uint64_t x2 = (uint64_t)hi << 32 | (uint32_t)sm64(hi) | 1;
			uint64_t r2 = __double_as_longlong(f64op<OP>(__longlong_as_double(x2)));
			if (r2 != r) lodep++;
			if ((uint32_t)r != 0) lownz++;
		}
		if (hi - tabBase < tabLen) tab[hi - tabBase] = (uint32_t)(r >> 32);
		hsum += sm64(r ^ sm64(h));
	}
	for (int o = 16; o; o >>= 1) hsum += __shfl_down_sync(0xffffffff, hsum, o);
	if ((threadIdx.x & 31) == 0) atomicAdd(&hash[base >> 20], hsum);
	atomicAdd(&cnt[0], lodep);
	atomicAdd(&cnt[1], lownz);
}

template <int OP> __global__ void f64samples(uint64_t *out) {
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= 4096) return;
	uint64_t xb = sm64(k + (7ull << 40));
	out[k] = __double_as_longlong(f64op<OP>(__longlong_as_double(xb)));
}

// small kernels for cuobjdump -sass
extern "C" __global__ void k_div_approx_f32(const float *a, float *o) { o[threadIdx.x] = divop<0>(a[threadIdx.x], a[threadIdx.x + 32]); }
extern "C" __global__ void k_div_approx_ftz_f32(const float *a, float *o) { o[threadIdx.x] = divop<1>(a[threadIdx.x], a[threadIdx.x + 32]); }
extern "C" __global__ void k_div_full_f32(const float *a, float *o) { o[threadIdx.x] = divop<2>(a[threadIdx.x], a[threadIdx.x + 32]); }
extern "C" __global__ void k_div_full_ftz_f32(const float *a, float *o) { o[threadIdx.x] = divop<3>(a[threadIdx.x], a[threadIdx.x + 32]); }
extern "C" __global__ void k_rcp_approx_ftz_f64(const double *a, double *o) { o[threadIdx.x] = f64op<0>(a[threadIdx.x]); }
extern "C" __global__ void k_rsqrt_approx_ftz_f64(const double *a, double *o) { o[threadIdx.x] = f64op<1>(a[threadIdx.x]); }
extern "C" __global__ void k_rsqrt_approx_f64(const double *a, double *o) { o[threadIdx.x] = f64op<2>(a[threadIdx.x]); }

static void wr(const char *dir, const char *name, const void *p, size_t n) {
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
}

template <int OP> void rundiv(const char *dir, FILE *log, std::vector<unsigned long long> &allhash, std::vector<uint32_t> &allsamp) {
	const char *names[4] = {"div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"};
	unsigned long long *hash; DivStats *st; uint32_t *mis, *samp; unsigned int *nmis;
	CK(cudaMalloc(&hash, 64 * 8)); CK(cudaMalloc(&st, sizeof(DivStats))); CK(cudaMalloc(&mis, MAXMIS * 16)); CK(cudaMalloc(&nmis, 4)); CK(cudaMalloc(&samp, 4096));
	DivStats tot; memset(&tot, 0, sizeof tot);
	for (int s = 0; s < NSW; s++) {
		CK(cudaMemset(hash, 0, 64 * 8)); CK(cudaMemset(st, 0, sizeof(DivStats))); CK(cudaMemset(nmis, 0, 4));
		divsweep<OP><<<(unsigned)(SWLEN[s] >> 16), 256>>>(s, SWLEN[s], hash, st, mis, nmis);
		divsamples<OP><<<4, 256>>>(s, SWLEN[s], samp);
		CK(cudaDeviceSynchronize());
		DivStats h; unsigned long long hh[64]; unsigned int nm; std::vector<uint32_t> mm(MAXMIS * 4), sp(1024);
		CK(cudaMemcpy(&h, st, sizeof h, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hh, hash, sizeof hh, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&nm, nmis, 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(mm.data(), mis, MAXMIS * 16, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(sp.data(), samp, 4096, cudaMemcpyDeviceToHost));
		fprintf(log, "%s sweep %d: n=%llu exact=%llu ulp0..3,>3=%llu,%llu,%llu,%llu,%llu maxulp=%llu nanmis=%llu bothnan=%llu modelmis=%llu\n",
			names[OP], s, h.n, h.exact, h.hist[0], h.hist[1], h.hist[2], h.hist[3], h.hist[4], h.maxulp, h.nanmis, h.bothnan, h.modelmis);
		for (unsigned k = 0; k < nm && k < 64; k++)
			fprintf(log, "  model mismatch %s a=%08x b=%08x gpu=%08x model=%08x\n", names[OP], mm[4 * k], mm[4 * k + 1], mm[4 * k + 2], mm[4 * k + 3]);
		if (nm) {
			char nmf[64]; snprintf(nmf, sizeof nmf, "mis_%d_%d.bin", OP, s);
			wr(dir, nmf, mm.data(), 16 * (nm < MAXMIS ? nm : MAXMIS));
		}
		for (int c = 0; c < (int)(SWLEN[s] >> 20); c++) allhash.push_back(hh[c]);
		allsamp.insert(allsamp.end(), sp.begin(), sp.end());
		tot.n += h.n; tot.exact += h.exact; for (int k = 0; k < 5; k++) tot.hist[k] += h.hist[k];
		if (h.maxulp > tot.maxulp) tot.maxulp = h.maxulp;
		tot.nanmis += h.nanmis; tot.bothnan += h.bothnan; tot.modelmis += h.modelmis;
	}
	fprintf(log, "%s total: n=%llu exact=%llu (%.4f%%) ulp0..3,>3=%llu,%llu,%llu,%llu,%llu maxulp=%llu nanmis=%llu bothnan=%llu modelmis=%llu\n",
		names[OP], tot.n, tot.exact, 100.0 * tot.exact / tot.n, tot.hist[0], tot.hist[1], tot.hist[2], tot.hist[3], tot.hist[4], tot.maxulp, tot.nanmis, tot.bothnan, tot.modelmis);
	fflush(log);
	cudaFree(hash); cudaFree(st); cudaFree(mis); cudaFree(nmis); cudaFree(samp);
}

template <int OP> void runf64(const char *dir, FILE *log, std::vector<unsigned long long> &allhash, std::vector<uint64_t> &allsamp, uint32_t base, uint32_t len, const char *tabname) {
	const char *names[3] = {"rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64", "rsqrt.approx.f64"};
	unsigned long long *hash, *cnt; uint32_t *tab; uint64_t *samp;
	CK(cudaMalloc(&hash, 4096 * 8)); CK(cudaMalloc(&cnt, 16)); CK(cudaMalloc(&tab, 4ull * (len ? len : 1))); CK(cudaMalloc(&samp, 4096 * 8));
	CK(cudaMemset(hash, 0, 4096 * 8)); CK(cudaMemset(cnt, 0, 16));
	f64sweep<OP><<<65536, 256>>>(hash, cnt, tab, base, len);
	f64samples<OP><<<16, 256>>>(samp);
	CK(cudaDeviceSynchronize());
	std::vector<unsigned long long> hh(4096); unsigned long long c[2]; std::vector<uint64_t> sp(4096);
	CK(cudaMemcpy(hh.data(), hash, 4096 * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(c, cnt, 16, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(sp.data(), samp, 4096 * 8, cudaMemcpyDeviceToHost));
	if (len) {
		std::vector<uint32_t> t(len);
		CK(cudaMemcpy(t.data(), tab, 4ull * len, cudaMemcpyDeviceToHost));
		wr(dir, tabname, t.data(), 4ull * len);
	}
	fprintf(log, "%s: all 2^32 high words hashed; results depending on the low word: %llu; nonzero low result words: %llu\n", names[OP], c[0], c[1]);
	fflush(log);
	allhash.insert(allhash.end(), hh.begin(), hh.end());
	allsamp.insert(allsamp.end(), sp.begin(), sp.end());
	cudaFree(hash); cudaFree(cnt); cudaFree(tab); cudaFree(samp);
}

int main(int argc, char **argv) {
	const char *dir = argc > 1 ? argv[1] : ".";
	char path[512];
	snprintf(path, sizeof path, "%s/fpapprox.log", dir);
	FILE *log = fopen(path, "w");
	cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
	fprintf(log, "device: %s\n", p.name);
	std::vector<unsigned long long> dh; std::vector<uint32_t> ds;
	rundiv<0>(dir, log, dh, ds); rundiv<1>(dir, log, dh, ds); rundiv<2>(dir, log, dh, ds); rundiv<3>(dir, log, dh, ds);
	wr(dir, "div_hash.bin", dh.data(), dh.size() * 8);
	wr(dir, "div_samples.bin", ds.data(), ds.size() * 4);
	std::vector<unsigned long long> fh; std::vector<uint64_t> fs;
	runf64<0>(dir, log, fh, fs, 0x3ff00000u, 1u << 20, "rcp64h_tab.bin");
	runf64<1>(dir, log, fh, fs, 0x3ff00000u, 2u << 20, "rsq64h_tab.bin");
	runf64<2>(dir, log, fh, fs, 0, 0, "");
	wr(dir, "f64_hash.bin", fh.data(), fh.size() * 8);
	wr(dir, "f64_samples.bin", fs.data(), fs.size() * 8);
	fclose(log);
	return 0;
}
