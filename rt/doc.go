// Package rt is the runtime that cugen-generated packages call.
//
// A generated package holds one *Library per embedded image. The library is
// loaded lazily, exactly once per Driver, with CUDA 12's context-independent
// API (cuLibraryLoadData); each kernel is a context-independent CUkernel that
// launches in whatever context the call names through its stream; without
// one, in the calling thread's current context, or with none current in
// device 0's primary context, as CUDA's runtime API does. Neither user code
// nor generated code keeps per-context state.
//
// Two backends implement Driver: rt/cgo (the real GPU, through a dlopen'ed
// libcuda.so.1) and rt/soft (a pure-Go PTX executor). Backends register
// themselves when imported; Default picks one (see Default). Devices lists
// the default driver's devices (DevicesOf any driver's), and contexts come
// from a Device:
//
//	devs, err := rt.Devices()
//	...
//	ctx, err := devs[0].Primary()
//
// The current context is per OS thread in CUDA. A first test needs none: a
// launch with no stream and no current context runs on device 0's primary
// context (rt retains it once, for the process). A program that calls
// SetCurrent to steer such launches elsewhere must call runtime.LockOSThread
// first, or the Go scheduler may move it to a thread where another context
// (or none) is current. Launching on a Stream never needs that: the stream
// names its context.
//
// # The families
//
// rt's core is loading, launching, contexts, streams and memory; each
// family is a file or two, and the driver calls under each are a Driver
// method or an optional capability interface (capabilities.go) that a
// backend implements:
//
//   - Loading and launching: Library, Kernel, Config and Kernel.Launch,
//     ParamSpec (the parameters generated code declares), a kernel's
//     attributes and occupancy (Kernel.Attributes, SuggestBlockSize),
//     linking images (Linker, LinkInput), and typed views of a module's
//     variables (Global, Managed, ConstPtr).
//   - Memory: Ptr and Buffer (device memory), PinnedBuffer, Pitched and
//     Copy2D, MemPool and AllocAsync, peer access and copies
//     (CanAccessPeer, Buffer.CopyFromPeer), and the CUDA vector and number
//     types kernels take (Float4, Half, BFloat16, Float8E4M3, Int128…).
//   - Streams, events and graphs: Stream, Event, Stream.WaitEvent,
//     Stream.LaunchHostFunc, Graph (built, or captured with
//     Stream.Capture) and GraphExec.
//   - Devices and contexts: Devices, Device, Context, the current context,
//     and the backends' registry (Register, Open, Default).
//   - Interop: AdoptContext, AdoptStream, AdoptBuffer and Native share
//     contexts, streams and memory with other CUDA code (cuBLAS, PyTorch
//     through cgo) in both directions.
//   - Arrays, textures and surfaces, at the driver level: the handles
//     kernels take (TextureObject, SurfaceObject), ArrayHandle, the Texturer
//     capability and what it passes (ResourceDesc; Copy3D, which also copies
//     between host and device memory). The objects themselves are
//     rt/tex/texobj's (below).
//   - Errors: every failure is an *Error carrying the CUresult (Result,
//     CodeOf); kernel faults are sticky, as in CUDA.
//
// Families of their own live in packages beside rt:
//
//   - rt/tex: the vocabulary of CUDA arrays and texture objects (formats,
//     shapes, sampling, limits), which imports nothing of rt.
//   - rt/tex/texobj: the arrays, texture objects and surface objects of a
//     context (texobj.NewArray, texobj.NewTexture, texobj.NewSurface) and
//     the copies to and from arrays (texobj.CopyToArray, …).
//   - rt/tensormap: Hopper's tensor maps (TMA), encoded from a description
//     of the tensor (tensormap.EncodeTiled, tensormap.EncodeIm2col); rt
//     keeps TensorMap, the type generated code passes, as an alias.
//   - rt/nccl: NCCL's collectives on rt's buffers and streams.
//
// rt's older names for what moved out (rt.ArrayDesc, rt.NewArray,
// rt.EncodeTiled, …) are deprecated forwarders; see each. Beside rt as well: rt/cgo and rt/soft
// are the backends, and rt/rttest the conformance suite every backend runs
// (and a fake driver for tests).
package rt
