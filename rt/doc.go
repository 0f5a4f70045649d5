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
package rt
