package nccl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cugen/cugen/rt"
)

// Bootstrap: one process per GPU, started by a launcher, each learning
// its rank from the environment and the communicator's UniqueID from rank
// 0 over TCP, as PyTorch's TCPStore gives it to torch.distributed.

// EnvAddr, set to host:port, is where rank 0 serves the UniqueID; it
// overrides MASTER_ADDR and MASTER_PORT.
const EnvAddr = "CUGEN_NCCL_ADDR"

// DefaultBootstrapTimeout bounds Launch.Comm and ShareID when their
// context has no deadline.
const DefaultBootstrapTimeout = 5 * time.Minute

// Launch is what a launcher told this process about its place in a job.
type Launch struct {
	Rank, Size           int // this process's rank among Size
	LocalRank, LocalSize int // its rank among the processes of its node, and their number (0: unknown)
	// Addr is host:port where rank 0 serves the UniqueID (ShareID); ""
	// when the environment gives none.
	Addr string
	// Launcher says which variables the values came from: "torchrun"
	// (or "env", RANK and WORLD_SIZE without torchrun's own), "openmpi",
	// "mpich" or "slurm".
	Launcher string
}

// LaunchEnv reads the calling process's place in a job from the variables
// launchers set, the first family present of:
//
//   - torchrun (and launchers that copy it): RANK, WORLD_SIZE, LOCAL_RANK,
//     LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT;
//   - Open MPI (mpirun): OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE,
//     OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE;
//   - MPICH and Intel MPI: PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,
//     MPI_LOCALNRANKS;
//   - Slurm (srun): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID,
//     SLURM_NTASKS_PER_NODE.
//
// LOCAL_RANK missing means LocalRank is Rank (one node).
//
// The address is CUGEN_NCCL_ADDR if set, else MASTER_ADDR:MASTER_PORT,
// which the MPI and Slurm launchers do not set: give them in the job
// script (MASTER_ADDR=$(scontrol show hostnames | head -1), a free port).
// Under torchrun, whose agent serves its own store on MASTER_PORT
// (TORCHELASTIC_USE_AGENT_STORE=True), rank 0 serves the UniqueID on
// MASTER_PORT+1.
func LaunchEnv() (Launch, error) {
	var l Launch
	var err error
	switch {
	case os.Getenv("RANK") != "" && os.Getenv("WORLD_SIZE") != "":
		l.Launcher = "env"
		if os.Getenv("TORCHELASTIC_RUN_ID") != "" || os.Getenv("TORCHELASTIC_USE_AGENT_STORE") != "" {
			l.Launcher = "torchrun"
		}
		err = l.read("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
	case os.Getenv("OMPI_COMM_WORLD_RANK") != "":
		l.Launcher = "openmpi"
		err = l.read("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE")
	case os.Getenv("PMI_RANK") != "":
		l.Launcher = "mpich"
		err = l.read("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")
	case os.Getenv("SLURM_PROCID") != "":
		l.Launcher = "slurm"
		err = l.read("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "")
		if err == nil {
			l.LocalSize = slurmTasksHere(os.Getenv("SLURM_NTASKS_PER_NODE"))
		}
	default:
		return l, errorf("nccl.LaunchEnv", InvalidUsage, "no launcher's variables (RANK and WORLD_SIZE, OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID) in the environment")
	}
	if err != nil {
		return l, err
	}
	l.Addr, err = bootstrapAddr(l.Launcher)
	return l, err
}

// read fills the ranks from the named variables; local and localSize may
// be absent (and localSize "").
func (l *Launch) read(rank, size, local, localSize string) error {
	var err error
	get := func(name string, dflt int) int {
		v := os.Getenv(name)
		if name == "" || v == "" {
			if dflt < 0 && err == nil {
				err = errorf("nccl.LaunchEnv", InvalidUsage, "%s is not set", name)
			}
			return dflt
		}
		n, e := strconv.Atoi(strings.TrimSpace(v))
		if e != nil || n < 0 {
			if err == nil {
				err = errorf("nccl.LaunchEnv", InvalidArgument, "%s=%q is not a rank or size", name, v)
			}
			return 0
		}
		return n
	}
	l.Rank, l.Size = get(rank, -1), get(size, -1)
	l.LocalRank, l.LocalSize = get(local, l.Rank), get(localSize, 0)
	switch {
	case err != nil:
		return err
	case l.Size < 1 || l.Rank >= l.Size:
		return errorf("nccl.LaunchEnv", InvalidArgument, "%s=%d of %s=%d", rank, l.Rank, size, l.Size)
	case l.LocalSize > 0 && l.LocalRank >= l.LocalSize:
		return errorf("nccl.LaunchEnv", InvalidArgument, "%s=%d of %s=%d", local, l.LocalRank, localSize, l.LocalSize)
	}
	return nil
}

// slurmTasksHere is the first count of SLURM_NTASKS_PER_NODE ("4", or
// "2(x3),1"): this node's, when the job's nodes are alike; 0 if unknown.
func slurmTasksHere(v string) int {
	v, _, _ = strings.Cut(v, ",")
	v, _, _ = strings.Cut(v, "(")
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return n
}

func bootstrapAddr(launcher string) (string, error) {
	if a := os.Getenv(EnvAddr); a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return "", errorf("nccl.LaunchEnv", InvalidArgument, "%s=%q: %v", EnvAddr, a, err)
		}
		return a, nil
	}
	host, port := os.Getenv("MASTER_ADDR"), os.Getenv("MASTER_PORT")
	if host == "" || port == "" {
		return "", nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return "", errorf("nccl.LaunchEnv", InvalidArgument, "MASTER_PORT=%q is not a port", port)
	}
	if os.Getenv("TORCHELASTIC_USE_AGENT_STORE") == "True" {
		// torchrun's agent serves its TCPStore on MASTER_PORT.
		if p++; p > 65535 {
			return "", errorf("nccl.LaunchEnv", InvalidArgument, "MASTER_PORT=%d leaves no port above it for the UniqueID (set %s)", p-1, EnvAddr)
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// Device is the device of the process's local rank in driver d: device
// LocalRank, as torchrun's LOCAL_RANK names it.
func (l Launch) Device(d rt.Driver) (rt.Device, error) {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return rt.Device{}, err
	}
	if l.LocalRank >= len(devs) {
		return rt.Device{}, errorf("nccl.Launch.Device", InvalidUsage, "local rank %d, and backend %s has %d devices", l.LocalRank, d.Name(), len(devs))
	}
	return devs[l.LocalRank], nil
}

// Comm creates this process's rank of the job's communicator on dev:
// rank 0 makes the UniqueID and serves it at l.Addr, every other rank
// fetches it (ShareID), and all call InitRank. ctx bounds both (see
// DefaultBootstrapTimeout).
func (l Launch) Comm(ctx context.Context, dev *rt.Context, opt *Options) (*Comm, error) {
	const op = "nccl.Launch.Comm"
	if dev == nil {
		return nil, errorf(op, InvalidArgument, "nil context")
	}
	if l.Addr == "" {
		return nil, errorf(op, InvalidUsage, "no bootstrap address: set MASTER_ADDR and MASTER_PORT (rank 0's host and a free port), or %s=host:port", EnvAddr)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultBootstrapTimeout)
		defer cancel()
	}
	e, err := engineFor(op, dev.Driver())
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(l.Addr)
	id, err := ShareID(ctx, l.Addr, l.Rank, l.Size, func() (UniqueID, error) { return e.newID(host) })
	if err != nil {
		return nil, err
	}
	return InitRank(ctx, dev, id, l.Rank, l.Size, opt)
}

// ShareID gives every rank the UniqueID rank 0 makes: rank 0 calls
// newID, listens on addr's port and answers each of the other nranks-1
// ranks, which connect to addr (retrying until rank 0 is up). It returns
// once rank 0 has answered all of them (rank 0) or the ID has arrived,
// and fails when ctx ends first, naming the ranks that never came (rank
// 0) or the address that never answered. Calls on one addr are matched in
// order: a process's second call meets the others' second.
func ShareID(ctx context.Context, addr string, rank, nranks int, newID func() (UniqueID, error)) (UniqueID, error) {
	const op = "nccl.ShareID"
	if nranks < 1 || rank < 0 || rank >= nranks {
		return UniqueID{}, errorf(op, InvalidArgument, "rank %d of %d", rank, nranks)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultBootstrapTimeout)
		defer cancel()
	}
	seq := nextShare(addr, rank)
	if rank == 0 {
		return serveID(ctx, addr, nranks, seq, newID)
	}
	return fetchID(ctx, addr, rank, nranks, seq)
}

// shares counts each rank's ShareID calls on each address: the k-th
// calls of all ranks meet.
var shares struct {
	mu  sync.Mutex
	seq map[shareKey]int
}

type shareKey struct {
	addr string
	rank int
}

func nextShare(addr string, rank int) int {
	shares.mu.Lock()
	defer shares.mu.Unlock()
	if shares.seq == nil {
		shares.seq = map[shareKey]int{}
	}
	k := shareKey{addr, rank}
	n := shares.seq[k]
	shares.seq[k] = n + 1
	return n
}

// idHello and idAnswer are the bootstrap's messages, one JSON line each.
type idHello struct {
	Magic        string
	Rank, NRanks int
	Seq          int
}

type idAnswer struct {
	ID    UniqueID
	Retry bool   // another ShareID round is being served: try again
	Err   string // the request is refused
}

const idMagic = "cugen-nccl-id/1"

func serveID(ctx context.Context, addr string, nranks, seq int, newID func() (UniqueID, error)) (UniqueID, error) {
	const op = "nccl.ShareID"
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return UniqueID{}, errorf(op, InvalidArgument, "address %q: %v", addr, err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", ":"+port) // every interface, as PyTorch's TCPStore server
	if err != nil {
		return UniqueID{}, &Error{Op: op, Code: SystemError, Detail: "rank 0 cannot serve the UniqueID on port " + port, Err: err}
	}
	defer ln.Close()
	id, err := newID()
	if err != nil {
		return UniqueID{}, err
	}
	if nranks == 1 {
		return id, nil
	}
	var mu sync.Mutex
	served := make([]bool, nranks)
	left := nranks - 1
	done := make(chan struct{})
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	for {
		conn, err := ln.Accept()
		if err != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			var h idHello
			if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&h); err != nil || h.Magic != idMagic {
				return // not a rank of ours
			}
			var a idAnswer
			mu.Lock()
			switch {
			case h.Seq != seq:
				a.Retry = true
			case h.NRanks != nranks:
				a.Err = fmt.Sprintf("rank %d says the job has %d ranks; rank 0 says %d", h.Rank, h.NRanks, nranks)
			case h.Rank <= 0 || h.Rank >= nranks:
				a.Err = fmt.Sprintf("rank %d is out of range for %d ranks", h.Rank, nranks)
			case served[h.Rank]:
				a.Err = fmt.Sprintf("rank %d asked twice (two processes with one rank?)", h.Rank)
			default:
				a.ID = id
			}
			mu.Unlock()
			if json.NewEncoder(conn).Encode(a) != nil || a.Retry || a.Err != "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if !served[h.Rank] {
				served[h.Rank] = true
				if left--; left == 0 {
					close(done)
					ln.Close()
				}
			}
		}()
	}
	wg.Wait()
	select {
	case <-done:
		return id, nil
	default:
	}
	mu.Lock()
	defer mu.Unlock()
	var missing []int
	for r := 1; r < nranks; r++ {
		if !served[r] {
			missing = append(missing, r)
		}
	}
	return UniqueID{}, &Error{Op: op, Code: RemoteError, Detail: fmt.Sprintf("%s of %d never connected to rank 0's bootstrap server on port %s", rankList(missing), nranks, port), Err: ctx.Err()}
}

func fetchID(ctx context.Context, addr string, rank, nranks, seq int) (UniqueID, error) {
	const op = "nccl.ShareID"
	pause := 50 * time.Millisecond
	var last error
	for {
		id, retry, err := askID(ctx, addr, idHello{Magic: idMagic, Rank: rank, NRanks: nranks, Seq: seq})
		switch {
		case err == nil && !retry:
			return id, nil
		case errors.Is(err, errRefused):
			return UniqueID{}, &Error{Op: op, Code: InvalidUsage, Detail: fmt.Sprintf("rank %d of %d: rank 0's bootstrap server at %s refused", rank, nranks, addr), Err: err}
		case err != nil:
			last = err
		}
		select {
		case <-ctx.Done():
			if last == nil {
				last = errors.New("it was serving another ShareID round")
			}
			return UniqueID{}, &Error{Op: op, Code: RemoteError, Detail: fmt.Sprintf("rank %d of %d could not get the UniqueID from rank 0's bootstrap server at %s before the context ended (%v)", rank, nranks, addr, ctx.Err()), Err: last}
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

var errRefused = errors.New("refused")

func askID(ctx context.Context, addr string, h idHello) (UniqueID, bool, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return UniqueID{}, false, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := json.NewEncoder(conn).Encode(h); err != nil {
		return UniqueID{}, false, err
	}
	var a idAnswer
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&a); err != nil {
		return UniqueID{}, false, err
	}
	if a.Err != "" {
		return UniqueID{}, false, fmt.Errorf("%w: %s", errRefused, a.Err)
	}
	return a.ID, a.Retry, nil
}
