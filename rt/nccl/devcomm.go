package nccl

import "unsafe"

// DevComm is NCCL's device communicator, ncclDevComm, as NCCL 2.28.3 lays
// it out (nccl_device/impl/comm__types.h): 88 bytes, 8-byte aligned. A
// kernel takes it by value; cugen types such a parameter as DevComm (see
// the package documentation), and Comm.DevComm makes one.
//
// NCCL changes this structure between releases (2.28.7 grew it to 200
// bytes), and a kernel must be compiled against the header of the NCCL
// that creates the value: DevComm is 2.28.3's, cugen refuses a kernel
// whose ncclDevComm parameter has another size, and Comm.DevComm refuses
// an NCCL whose layout differs.
type DevComm struct {
	rank, nRanks     int32
	nRanksRcp32      uint32
	lsaRank, lsaSize int32
	lsaSizeRcp32     uint32
	// windowTable, resourceWindow, resourceWindow_inlined (a
	// ncclWindow_vidmem: two pointers, two ints, two uint32s), lsaMultimem
	// and lsaBarrier: device addresses and handles for NCCL's device code.
	rest [8]uint64
}

// DevCommSize is ncclDevComm's size in NCCL 2.28.3, the layout DevComm has.
const DevCommSize = 88

var _ [DevCommSize]byte = [unsafe.Sizeof(DevComm{})]byte{}

// devCommABI is the range of NCCL versions (ncclGetVersion's codes) whose
// ncclDevComm and ncclDevCommRequirements are DevComm's: 2.28.3 up to the
// change in 2.28.7.
const devCommABIMin, devCommABIMax = 22803, 22806

// Rank is the rank's index in its communicator, as kernels read comm.rank.
func (d DevComm) Rank() int { return int(d.rank) }

// NRanks is the communicator's size (comm.nRanks).
func (d DevComm) NRanks() int { return int(d.nRanks) }

// LsaRank and LsaSize are the rank's index in, and the size of, its
// load/store-accessible team: the ranks whose memory it reaches directly
// (comm.lsaRank, comm.lsaSize).
func (d DevComm) LsaRank() int { return int(d.lsaRank) }

// LsaSize: see LsaRank.
func (d DevComm) LsaSize() int { return int(d.lsaSize) }

// DevCommRequirements is what kernels using a DevComm need of it
// (ncclDevCommRequirements). The zero value needs nothing beyond the
// communicator's description (rank, nRanks, the LSA team).
type DevCommRequirements struct {
	// LsaBarrierCount is the number of LSA barriers kernels use
	// (ncclLsaBarrierSession's index range).
	LsaBarrierCount int
	// Multicast memory (lsaMultimem) is left out: it needs NVLink
	// multicast, which the machines cugen is tested on keep off.
}

// idivRcp32 is NCCL's reciprocal for fast division by x (utility.h).
func idivRcp32(x uint32) uint32 {
	r := ^uint32(0) / x
	if x&(x-1) == 0 {
		r++
	}
	return r
}

// DevComm creates the rank's device communicator (ncclDevCommCreate),
// for kernels that call NCCL's device API: every rank calls it. NCCL needs
// symmetric memory support for it, which NCCL 2.28.3 has only for
// communicators of two or more ranks on one node with direct peer access
// (and CUDA VMM, NCCL_CUMEM_ENABLE; NCCL_WIN_ENABLE not 0): on one rank it
// refuses, and no setting changes that. NCCL 2.28.7 and later make one
// for a single rank too, but in their own layout (see DevCommSize). The
// soft engine gives each rank a DevComm with its rank, size and an LSA
// team of itself alone (soft kernels reach no peer memory), for kernels
// that read them. Destroy it with DestroyDevComm before the communicator.
func (c *Comm) DevComm(req *DevCommRequirements) (DevComm, error) {
	d, err := DevCommAll([]*Comm{c}, req)
	if err != nil {
		return DevComm{}, err
	}
	return d[0], nil
}

// DevCommAll is Comm.DevComm for several ranks at once, as one goroutine
// that drives them must call it (each rank's creation waits for its
// peers'): d[i] is comms[i]'s.
func DevCommAll(comms []*Comm, req *DevCommRequirements) ([]DevComm, error) {
	const op = "ncclDevCommCreate"
	if len(comms) == 0 {
		return nil, errorf(op, InvalidArgument, "no communicators")
	}
	if req == nil {
		req = &DevCommRequirements{}
	}
	if req.LsaBarrierCount < 0 {
		return nil, errorf(op, InvalidArgument, "LsaBarrierCount %d", req.LsaBarrierCount)
	}
	if currentGroup() != nil {
		return nil, errorf(op, InvalidUsage, "called between GroupStart and GroupEnd (DevCommAll is a group of its own)")
	}
	impls := make([]commImpl, len(comms))
	for i, c := range comms {
		if err := c.usable(op); err != nil {
			return nil, err
		}
		if i > 0 && c.ctx.Driver() != comms[0].ctx.Driver() {
			return nil, errorf(op, InvalidArgument, "communicator %d is of backend %s, communicator 0 of %s", i, c.ctx.Driver().Name(), comms[0].ctx.Driver().Name())
		}
		impls[i] = c.impl
	}
	return impls[0].devCommAll(impls, req)
}

// DestroyDevComm destroys a device communicator DevComm made
// (ncclDevCommDestroy).
func (c *Comm) DestroyDevComm(d *DevComm) error {
	const op = "ncclDevCommDestroy"
	if err := c.usable(op); err != nil {
		return err
	}
	if d == nil {
		return errorf(op, InvalidArgument, "nil DevComm")
	}
	return c.impl.destroyDevComm(d)
}

func (sc *softComm) devCommAll(ranks []commImpl, req *DevCommRequirements) ([]DevComm, error) {
	if req.LsaBarrierCount > 0 {
		return nil, errorf("ncclDevCommCreate", InvalidUsage, "the soft engine has no LSA barriers (its kernels reach no peer memory)")
	}
	out := make([]DevComm, len(ranks))
	for i, r := range ranks {
		s := r.(*softComm)
		out[i] = DevComm{rank: int32(s.rank), nRanks: int32(s.size), nRanksRcp32: idivRcp32(uint32(s.size)),
			lsaRank: 0, lsaSize: 1, lsaSizeRcp32: idivRcp32(1)}
	}
	return out, nil
}

func (sc *softComm) destroyDevComm(*DevComm) error { return nil }
