// Package exec is rt/soft's executor: it decodes a module's PTX into
// programs and runs their grids on the CPU, bit for bit as the H100 does,
// with memcheck and (when asked) racecheck. rt/soft, the driver, is built
// on it, and so is rt/soft/loadcheck, cugen's load check (CheckPTX), which
// needs the decoder and not the driver. What soft computes (floating point,
// NaNs, contraction, textures, tensor cores, coverage) is stated in
// rt/soft's package doc.
//
// # The driver interface
//
// The executor reaches the driver through one interface, Host: the CUDA
// context a launch runs in, which rt/soft's contexts implement. A Launch
// also names the Memory (every allocation of the driver's devices, in one
// address map) and the Config (the driver's options the executor reads).
// The driver
//
//   - loads a module with LoadModule, which contracts and decodes every
//     kernel into a Program; the Module is shared by every context;
//   - makes allocations (NewAlloc, Memory.Insert), each owned by a Host (nil
//     for managed memory), and places a module's variables in each context
//     (Module.Vars, VarIndex, InitBytes);
//   - runs a grid by filling a Launch (program, shape, parameters,
//     variables, Host, Memory, Config) and calling Run, which returns the
//     first fault as an *rt.Error described as compute-sanitizer describes
//     it, and reports what it executed (Executed);
//   - answers Host: peer access (Reaches), allocation and free in the
//     context, a device-side launch's variables and launch check, texture
//     and surface objects (TexObject), printf output, the driver's sticky
//     fault, and the context's device-runtime state (Runtime).
//
// # How a grid runs
//
// Each kernel is decoded at load time into a register bytecode specialised
// on types and modifiers, run by one switch-dispatch loop. Registers are
// stored structure-of-arrays ([slot*32+lane]uint64); predicates are one
// 32-bit mask per warp. A warp's 32 lanes run in lockstep with per-lane
// program counters and min-PC reconvergence (the lanes at the lowest PC
// run together and absorb any lane they catch up with). Barriers park
// lanes; a CTA's warps run round-robin on one goroutine, and CTAs (or the
// clusters they form) are spread over Config.Workers goroutines. Anything
// the executor cannot run fails at load with the PTX file:line:col and the
// opcode, never silently at run time.
//
// # Where things are
//
//	loading      module.go (LoadModule, Module), program.go (Program), decode.go
//	             (functions, frames, registers), decode_instr.go (instructions),
//	             contract.go and contract_region.go (ptxas's mul+add fusion),
//	             indirect.go (function addresses), check.go (CheckPTX)
//	running      grid.go (Launch: workers, faults), exec.go (warps, CTAs, the
//	             scheduler, the dispatch loop), ops.go and ops_gen.go (the bytecode;
//	             the generated arithmetic, go generate), sreg.go (special registers)
//	memory       memory.go (Memory, Alloc), memaccess.go (ld, st, state spaces,
//	             memcheck), atom.go, atomvec.go, b128.go
//	control      call.go (calls, the stack), alloca.go, brx.go, barrier.go,
//	             collective.go (shfl, vote, match, redux), cluster.go, mbarrier.go,
//	             coop.go (grid sync)
//	families     aluforms.go (forms registered by function: fp8, packing, half
//	             extras), integer.go (bmsk, dp4a, SIMD video), video.go (scalar
//	             video), tensor_*.go (tensor cores: decode, types and layouts, mma,
//	             sparse, wgmma, how products are summed), bulk.go, tensorcopy.go,
//	             tensormap_replace.go, texinstr.go (tex, tld4, suld, sust, sured,
//	             txq, suq), printf.go, malloc.go, cdp.go (the device runtime)
//	racecheck    racecheck.go (the model), racecheck_access.go (instrumented
//	             accesses), shuffle.go (the shuffled scheduler)
//	host.go      Config, Host, Runtime
//
// The arithmetic the bytecode calls (rounding, half formats, NaN rules,
// MUFU tables, fp8, atomics) is in rt/soft/internal/gpumath; the texture
// unit (sampling, filtering, surface formats) in rt/soft/internal/texunit;
// every access to device memory goes through rt/soft/internal/devmem
// (plain loads and stores, or sync/atomic under -race). They are leaves:
// they import nothing of the executor.
//
// The package is internal: its exported names are the interface rt/soft,
// rt/soft/loadcheck and their tests use, and change with them.
package exec
