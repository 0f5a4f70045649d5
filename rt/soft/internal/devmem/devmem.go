// Package devmem reads and writes device memory: the bytes of rt/soft's
// allocations, which a kernel's CTAs, stream work and host copies may touch
// from several goroutines at once, as correct CUDA programs do (blocks that
// store the same flag, a last block that reads what the others wrote
// before their fence and atomic).
//
// Built normally, each access is the plain load, store or copy the
// executor has always made: the functions inline to it. Built with -race
// (the race build tag), each goes through sync/atomic, sub-word accesses as
// atomics on the aligned 32-bit word around them, so that the race detector
// reports the Go program's races and never a kernel's, which are the GPU's
// business (and racecheck's, when Options.RaceCheck asks).
//
// Every pointer and slice given must lie in memory whose aligned 8-byte
// words belong to it whole: rt/soft backs allocations, shared and local
// memory and parameter buffers with []uint64. Host memory (a Go slice a
// copy reads or writes) is the other side of CopyIn and CopyOut, accessed
// plainly.
package devmem
