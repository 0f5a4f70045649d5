// Kernels that take NCCL's device communicator by value, for rt/nccl's
// tests: what a kernel reads of it, on soft and on the GPU.
#include <nccl_device.h>

// readDevComm writes the communicator's description to info (rank, nRanks,
// lsaRank, lsaSize, then the world team's size and rank) and every byte of
// the parameter to raw[0:88].
__global__ void readDevComm(ncclDevComm comm, int *info, unsigned char *raw) {
	if (threadIdx.x == 0) {
		ncclTeam world = ncclTeamWorld(comm);
		info[0] = comm.rank;
		info[1] = comm.nRanks;
		info[2] = comm.lsaRank;
		info[3] = comm.lsaSize;
		info[4] = world.nRanks;
		info[5] = world.rank;
	}
	const unsigned char *p = (const unsigned char *)&comm;
	for (unsigned i = threadIdx.x; i < sizeof comm; i += blockDim.x) {
		raw[i] = p[i];
	}
}

// scaleByRanks divides x by the number of ranks (a C-linkage kernel: its
// parameter's type comes from the source, through the typedef).
extern "C" __global__ void scaleByRanks(ncclDevComm_t comm, float *x, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		x[i] /= comm.nRanks;
	}
}
