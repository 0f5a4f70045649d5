// nccl_device.h, as cugen's clang route sees it: NCCL 2.28.3's device
// communicator, ncclDevComm, which a kernel takes by value (cugen types
// the parameter as rt/nccl's DevComm), and the inline functions that only
// read it. It is cugen's own declaration of NCCL's layout
// (nccl_device/impl/comm__types.h in NCCL 2.28.3: 88 bytes), not NCCL's
// header, which needs libcu++ (<cuda/atomic>) that clang's route lacks.
//
// A kernel that uses more of NCCL's device API (LSA barriers, window and
// peer pointers, GIN) needs NCCL's headers: compile it with -compiler nvcc
// on a machine with NCCL, or pass clang NCCL's include directory
// (-cflags "-I/usr/include", which is searched before this file).
#pragma clang system_header
#ifndef CUGEN_NCCL_DEVICE_H
#define CUGEN_NCCL_DEVICE_H

// The NCCL version whose layout this is (NCCL_VERSION_CODE).
#define CUGEN_NCCL_DEVICE_ABI 22803

#ifndef NCCL_H_
typedef struct ncclComm *ncclComm_t;
typedef struct ncclWindow_vidmem *ncclWindow_t;
#endif

typedef __UINT32_TYPE__ ncclDevResourceHandle;
typedef ncclDevResourceHandle ncclDevResourceHandle_t;

struct ncclWindow_vidmem {
	void *winHost;
	char *lsaFlatBase;  // the first byte of the LSA team's rank 0
	int lsaRank;
	int worldRank;
	__UINT32_TYPE__ stride4G;
	__UINT32_TYPE__ mcOffset4K;
};

struct ncclMultimemHandle {
	void *mcBasePtr;
};
typedef struct ncclMultimemHandle ncclMultimemHandle_t;

struct ncclLsaBarrierHandle {
	ncclDevResourceHandle_t bufHandle;
	int nBarriers;
};
typedef struct ncclLsaBarrierHandle ncclLsaBarrierHandle_t;

struct ncclDevCommWindowTable;

struct ncclTeam {
	int nRanks, rank, stride;
};
typedef struct ncclTeam ncclTeam_t;

struct ncclDevComm {
	int rank, nRanks;
	__UINT32_TYPE__ nRanks_rcp32;
	int lsaRank, lsaSize;
	__UINT32_TYPE__ lsaSize_rcp32;
	struct ncclDevCommWindowTable *windowTable;
	ncclWindow_t resourceWindow;
	struct ncclWindow_vidmem resourceWindow_inlined;
	ncclMultimemHandle_t lsaMultimem;
	ncclLsaBarrierHandle_t lsaBarrier;
};
typedef struct ncclDevComm ncclDevComm_t;

static_assert(sizeof(struct ncclDevComm) == 88, "NCCL 2.28.3's ncclDevComm is 88 bytes");
static_assert(alignof(struct ncclDevComm) == 8, "NCCL 2.28.3's ncclDevComm is 8-byte aligned");

// cugen_ncclTeam is a team of nRanks consecutive ranks (stride 1).
__host__ __device__ inline ncclTeam cugen_ncclTeam(int nRanks, int rank) {
	ncclTeam t;
	t.nRanks = nRanks;
	t.rank = rank;
	t.stride = 1;
	return t;
}

// The world and LSA teams of a device communicator (NCCL's
// nccl_device/core.h).
__host__ __device__ inline ncclTeam ncclTeamWorld(ncclDevComm const &comm) {
	return cugen_ncclTeam(comm.nRanks, comm.rank);
}

__host__ __device__ inline ncclTeam ncclTeamLsa(ncclDevComm const &comm) {
	return cugen_ncclTeam(comm.lsaSize, comm.lsaRank);
}

__host__ __device__ inline int ncclTeamRankToWorld(ncclDevComm const &comm, ncclTeam tm, int rank) {
	return comm.rank + (rank - tm.rank) * tm.stride;
}

#endif
