// Package nccl is NCCL's collectives for rt: communicators of several
// devices, in one process or one process per GPU across nodes, and typed
// operations (AllReduce, Broadcast, Reduce, AllGather, ReduceScatter,
// AllToAll, Send, Recv) on rt.Buffer and rt.Ptr, queued on rt.Streams with
// cugen's generated launches and captured into rt.Graphs with them.
//
// # Engines
//
// A communicator's contexts choose what runs it. rt/cgo's (the GPU) get
// NCCL itself: libnccl.so.2 is dlopen'ed at first use, so nothing is needed
// to build and a program built without NCCL runs where NCCL is installed.
// The library is $CUGEN_NCCL_LIB if set, else the dynamic linker's
// libnccl.so.2 (a system install: /usr/lib/x86_64-linux-gnu), else a pip
// wheel's (nvidia-nccl-cu12/13, in the virtual or conda environment or the
// usual Python package directories). Without one, or with one older than
// NCCL 2.18, creating a communicator fails and says which files it tried.
// Each NCCL call is one C call that makes the rank's context current around
// it (an operation on a thread with no current context leaves the rank's
// current, as the CUDA runtime does, so that the next one switches nothing;
// a context the caller made current is restored); ncclUniqueId travels by
// pointer to that C function, which passes its
// 128 bytes by value as the platform's ABI wants. NCCL works in primary
// contexts (Device.Primary). Built with CGO_ENABLED=0 the package compiles,
// and only the soft engine works.
//
// rt/soft's contexts get the soft engine, which runs the same API in pure
// Go on the rt API itself, so that multi-GPU code's tests run in CI (see
// Soft engine).
//
// # Communicators
//
// One process driving several devices: InitAll(ctxs, nil), rank i on
// ctxs[i]; one goroutine then issues each operation on every rank inside
// one group (Group, or GroupStart and GroupEnd), as NCCL requires:
//
//	comms, err := nccl.InitAll(ctxs, nil)
//	err = nccl.Group(func() error {
//		for i, c := range comms {
//			if err := nccl.AllReduceInPlace(c, grads[i], nccl.Avg, streams[i]); err != nil {
//				return err
//			}
//		}
//		return nil
//	})
//
// One process per GPU, as torchrun, mpirun or srun start them: LaunchEnv
// reads the rank, size, local rank and rank 0's address from their
// variables, and Launch.Comm creates the rank (rank 0 makes the UniqueID
// and serves it over TCP, the others fetch it, all call InitRank):
//
//	l, err := nccl.LaunchEnv()
//	dev, err := l.Device(drv) // device LOCAL_RANK
//	ctx, err := dev.Primary()
//	comm, err := l.Comm(context.Background(), ctx, nil)
//
// Programs that carry the ID themselves call NewUniqueID on one rank and
// InitRank on every rank. Split makes sub-communicators, Destroy (DestroyAll
// for ranks one goroutine drives) frees them once their work is done, Abort
// stops them, and AsyncError reports what their asynchronous work met, with
// NCCL's message (ncclGetLastError). Every error is an *Error carrying
// NCCL's ncclResult_t; errors.Is(err, nccl.InvalidUsage) and the like test
// it.
//
// # Operations
//
// Each operation takes T from its buffers (Elem: the integer and float
// types, rt.Half, rt.BFloat16, rt.Float8E4M3, rt.Float8E5M2), checks in Go
// that counts, buffers, streams and contexts fit the rank before anything
// reaches NCCL, and queues the operation on its stream: it runs after the
// work queued there before it and before the work queued after it,
// kernels included, and a capture records it. A group issues its
// operations at GroupEnd: queue what depends on them after GroupEnd. A
// group belongs to the calling goroutine, which GroupStart locks to its OS
// thread until GroupEnd (NCCL's groups are per thread).
//
// The Buffer forms take their counts from the buffers; the InPlace forms
// work in one buffer; the Ptr forms take pointers and counts as NCCL does.
// The reductions are Sum, Prod, Max, Min, Avg and NewPreMulSum's
// operators.
//
// # Soft engine
//
// Each soft device is a rank. An operation is three steps of its stream:
// asynchronous copies of the rank's input into page-locked staging memory,
// a host function that meets the other ranks at the communicator's
// rendezvous and receives the result, and copies of the result into the
// rank's buffers; captured, these become memcpy and host nodes, and every
// launch of the graph meets the other ranks again. The rendezvous runs in
// the process that made the communicator's UniqueID; ranks in other
// processes (Launch.Comm with rt/soft contexts) reach it over TCP, so the
// bootstrap path and multi-process programs run in CI on one machine. Its
// protocol trusts its peers, as NCCL's does.
//
// Results are NCCL's: the same operations, types and reductions, with
// NCCL's arithmetic (see reduce.go: half and bfloat16 round every
// operation, fp8 works in half and saturates, Avg multiplies floats by
// 1/nranks and divides integers, NaNs are canonical). The reduction order
// is fixed: rank 0's value combined with rank 1's, that with rank 2's, and
// so on, computed once and given to every rank. For integers, Min and Max
// that is NCCL's result exactly; for float sums and products of more than
// two ranks NCCL's order depends on its algorithm and channel, so the soft
// result may differ from a GPU's in the last bits, but it is the same on
// every rank and in every run: replicas stay bit-identical, and tests can
// compare exact values.
//
// Operations are matched by order: each rank's k-th collective meets the
// others' k-th, and a (sender, receiver) pair's k-th Send its k-th Recv.
// Where NCCL would hang or corrupt memory the soft engine fails the
// communicator, naming the ranks and operations: ranks that disagree on an
// operation, a rank that does not come within Options.PeerTimeout, a rank
// that left or whose process died. A Send does not wait for its Recv, and
// within a group Sends go first: every program NCCL runs, runs. Soft
// kernels reach no other rank's memory: DevComm describes the rank and
// communicator only, and there are no windows.
//
// # Device-side NCCL
//
// Since NCCL 2.28 kernels can call NCCL themselves with an ncclDevComm
// passed by value. cugen types such a parameter as DevComm (NCCL 2.28.3's
// layout, 88 bytes; cugen refuses a kernel compiled against another NCCL's
// header), and Comm.DevComm or DevCommAll creates it (ncclDevCommCreate).
// On the nvcc route a kernel includes NCCL's nccl_device.h from the NCCL
// install; cugen's clang route has its own nccl_device.h with the
// structure and the functions that only read it, since NCCL's header needs
// libcu++ (pass -cflags -I to an NCCL install to use NCCL's instead).
// AllocMemory and Comm.RegisterWindow make the symmetric memory that NCCL's
// device API addresses across ranks.
package nccl
