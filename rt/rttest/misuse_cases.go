package rttest

import (
	"slices"
	"unsafe"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// The misuse cases, by the argument they get wrong. The generators below
// make one case per way of getting an argument wrong; the specific cases
// after them are the rest.

func codes(c ...rt.Result) []rt.Result { return c }

var (
	okay         = codes(rt.Success)
	badHandle    = codes(rt.ErrInvalidHandle)
	badContext   = codes(rt.ErrInvalidContext)
	badValue     = codes(rt.ErrInvalidValue)
	badDevice    = codes(rt.ErrInvalidDevice)
	outOfMemory  = codes(rt.ErrOutOfMemory)
	notPermitted = codes(rt.ErrNotPermitted)
)

// streamArg makes the cases of a call's stream parameter, for a call that
// works in the context of something else it is given (a buffer, an event,
// an array, a graph): nil is that context's NULL stream.
func streamArg(api string, call func(e *misuseEnv, s *rt.Stream) error) []misuseCase {
	return []misuseCase{
		{api: api, what: "nil stream", want: okay, run: func(e *misuseEnv) error { return call(e, nil) }},
		{api: api, what: "zero Stream", want: badHandle, run: func(e *misuseEnv) error { return call(e, &rt.Stream{}) }},
		{api: api, what: "destroyed stream", want: badHandle, run: func(e *misuseEnv) error { return call(e, e.deadStream()) }},
		{api: api, what: "stream of a released context", want: badContext, run: func(e *misuseEnv) error { return call(e, e.releasedStream()) }},
		{api: api, what: "stream of another driver", want: badHandle, run: func(e *misuseEnv) error { return call(e, e.fakeStream()) }},
		{api: api, what: "stream of another device", want: badValue, needs: needsTwo, run: func(e *misuseEnv) error { return call(e, e.farStream()) }},
	}
}

// streamRecv makes the cases of a method of *Stream.
func streamRecv(api string, call func(e *misuseEnv, s *rt.Stream) error) []misuseCase {
	return []misuseCase{
		{api: api, what: "nil stream", want: badHandle, run: func(e *misuseEnv) error { return call(e, nil) }},
		{api: api, what: "zero Stream", want: badHandle, run: func(e *misuseEnv) error { return call(e, &rt.Stream{}) }},
		{api: api, what: "destroyed stream", want: badHandle, run: func(e *misuseEnv) error { return call(e, e.deadStream()) }},
		{api: api, what: "stream of a released context", want: badContext, run: func(e *misuseEnv) error { return call(e, e.releasedStream()) }},
	}
}

// ctxArg makes the cases of a *Context parameter or receiver.
func ctxArg(api string, call func(e *misuseEnv, c *rt.Context) error) []misuseCase {
	return []misuseCase{
		{api: api, what: "nil context", want: badContext, run: func(e *misuseEnv) error { return call(e, nil) }},
		{api: api, what: "zero Context", want: badContext, run: func(e *misuseEnv) error { return call(e, &rt.Context{}) }},
		{api: api, what: "released context", want: badContext, run: func(e *misuseEnv) error { return call(e, e.released()) }},
	}
}

// bufRecv makes the cases of a Buffer receiver; freed is what a freed
// buffer gets (the backend's code), nil for a call that cannot tell.
func bufRecv(api string, freed []rt.Result, call func(e *misuseEnv, b rt.Buffer[float32]) error) []misuseCase {
	cs := []misuseCase{
		{api: api, what: "zero Buffer", want: badValue, run: func(e *misuseEnv) error { return call(e, rt.Buffer[float32]{}) }},
		{api: api, what: "Buffer no Alloc made", want: badValue, run: func(e *misuseEnv) error {
			return call(e, rt.Buffer[float32]{Ptr: e.buf.Ptr, Len: e.buf.Len})
		}},
		{api: api, what: "buffer of a released context", want: badContext, run: func(e *misuseEnv) error { return call(e, e.releasedBuf()) }},
	}
	if freed != nil {
		cs = append(cs, misuseCase{api: api, what: "freed buffer", want: freed, run: func(e *misuseEnv) error { return call(e, e.freed()) }})
	}
	return cs
}

// eventRecv makes the cases of an *Event receiver or parameter.
func eventRecv(api string, call func(e *misuseEnv, ev *rt.Event) error) []misuseCase {
	return []misuseCase{
		{api: api, what: "nil event", want: badHandle, run: func(e *misuseEnv) error { return call(e, nil) }},
		{api: api, what: "zero Event", want: badHandle, run: func(e *misuseEnv) error { return call(e, &rt.Event{}) }},
		{api: api, what: "destroyed event", want: badHandle, run: func(e *misuseEnv) error { return call(e, e.deadEvent()) }},
		{api: api, what: "event of a released context", want: badContext, run: func(e *misuseEnv) error {
			c, err := e.devs[0].NewContext(0)
			if err != nil {
				return err
			}
			ev := e.event(c)
			if err := c.Release(); err != nil {
				return err
			}
			return call(e, ev)
		}},
	}
}

// deviceRecv makes the case of a zero Device.
func deviceRecv(api string, call func(e *misuseEnv, d rt.Device) error) []misuseCase {
	return []misuseCase{{api: api, what: "zero Device", want: badDevice, run: func(e *misuseEnv) error { return call(e, rt.Device{}) }}}
}

// driverArg makes the case of a nil Driver.
func driverArg(api string, call func(e *misuseEnv, d rt.Driver) error) []misuseCase {
	return []misuseCase{{api: api, what: "nil driver", want: badValue, run: func(e *misuseEnv) error { return call(e, nil) }}}
}

// handleRecv makes the nil, zero and destroyed cases of a handle type
// (graphs, pools, arrays, textures, surfaces), given how to make a live
// one and destroy it.
func handleRecv[T any](api string, needs func(e *misuseEnv) string, make func(e *misuseEnv) (*T, error), destroy func(*T) error, call func(e *misuseEnv, h *T) error) []misuseCase {
	return []misuseCase{
		{api: api, what: "nil", want: badHandle, needs: needs, run: func(e *misuseEnv) error { return call(e, nil) }},
		{api: api, what: "zero value", want: badHandle, needs: needs, run: func(e *misuseEnv) error { return call(e, new(T)) }},
		{api: api, what: "destroyed", want: badHandle, needs: needs, run: func(e *misuseEnv) error {
			h, err := make(e)
			if err != nil {
				return err
			}
			if err := destroy(h); err != nil {
				return err
			}
			return call(e, h)
		}},
	}
}

// noPanic is a case for an accessor without an error: called on a nil or
// zero receiver, it must return (anything) without panicking.
func noPanic(api, what string, call func(e *misuseEnv)) misuseCase {
	return misuseCase{api: api, what: what, want: okay, run: func(e *misuseEnv) error { call(e); return nil }}
}

// drop removes the variants named whats: for a call where that argument
// is not a misuse (the call's own case covers it).
func drop(cs []misuseCase, whats ...string) []misuseCase {
	var out []misuseCase
	for _, c := range cs {
		if !slices.Contains(whats, c.what) {
			out = append(out, c)
		}
	}
	return out
}

// expect sets the codes the variant what accepts.
func expect(cs []misuseCase, what string, want []rt.Result) []misuseCase {
	for i := range cs {
		if cs[i].what == what {
			cs[i].want = want
		}
	}
	return cs
}

// needing makes every case need n (and what it needed).
func needing(n func(e *misuseEnv) string, cs []misuseCase) []misuseCase {
	for i := range cs {
		if prev := cs[i].needs; prev != nil {
			cs[i].needs = both(n, prev)
		} else {
			cs[i].needs = n
		}
	}
	return cs
}

func cat(lists ...[]misuseCase) []misuseCase {
	var out []misuseCase
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var (
	needsGraphs   = needs[rt.Grapher]("graphs (rt.Grapher)")
	needsStreamer = needs[rt.Streamer]("host functions (rt.Streamer)")
	needsMemOps   = needs[rt.MemoryOps]("rt.MemoryOps")
	needsAsync    = needs[rt.AsyncAllocator]("stream-ordered allocation (rt.AsyncAllocator)")
	needsTex      = needs[rt.Texturer]("arrays and textures (rt.Texturer)")
	needsAttrs    = needs[rt.KernelAttributer]("kernel attributes (rt.KernelAttributer)")
	needsOcc      = needs[rt.OccupancyCalculator]("occupancy queries (rt.OccupancyCalculator)")
	needsPeer     = needs[rt.PeerAccessor]("peer access (rt.PeerAccessor)")
)

func newGraph(e *misuseEnv) (*rt.Graph, error) { return e.ctx.NewGraph() }

func newExec(e *misuseEnv) (*rt.GraphExec, error) {
	g, err := e.ctx.NewGraph()
	if err != nil {
		return nil, err
	}
	defer g.Destroy()
	return g.Instantiate()
}

func newPool(e *misuseEnv) (*rt.MemPool, error) { return e.devs[0].NewMemPool(0) }

var arrayDesc = rt.ArrayDesc{Width: 16, Format: rt.FormatFloat, Channels: 1, Flags: rt.ArraySurfaceLoadStore}

func newArray(e *misuseEnv) (*texobj.Array, error) { return texobj.NewArray(e.ctx, arrayDesc) }

func newTexture(e *misuseEnv) (*texobj.Texture, error) {
	return texobj.NewTexture(e.ctx, texobj.LinearResource(e.buf.Ptr.Addr(), rt.FormatFloat, 1, e.buf.Len), rt.TextureDesc{})
}

func newSurface(e *misuseEnv) (*texobj.Surface, error) {
	a, err := newArray(e)
	if err != nil {
		return nil, err
	}
	return texobj.NewSurface(a)
}

var four = make([]float32, 4)

func misuseCases() []misuseCase {
	return cat(
		adoptCases(), deprecatedCases(),
		contextCases(), deviceCases(), streamCases(), eventCases(), memoryCases(), sizeCases(),
		asyncCases(), graphCases(), libraryCases(), kernelCases(), variableCases(), textureCases(),
		peerCases(), hostFuncCases(), clusterCases(), driverCases(),
		// Last: if a backend let a destroyed capture survive, the calls
		// after it would all fail.
		captureCases(),
	)
}

func contextCases() []misuseCase {
	return cat(
		ctxArg("Context.NewStream", func(e *misuseEnv, c *rt.Context) error { _, err := c.NewStream(); return err }),
		ctxArg("Context.NewStreamWith", func(e *misuseEnv, c *rt.Context) error { _, err := c.NewStreamWith(0, 0); return err }),
		ctxArg("Context.NewEvent", func(e *misuseEnv, c *rt.Context) error { _, err := c.NewEvent(0); return err }),
		ctxArg("Context.Synchronize", func(e *misuseEnv, c *rt.Context) error { return c.Synchronize() }),
		ctxArg("Context.SetCurrent", func(e *misuseEnv, c *rt.Context) error { return c.SetCurrent() }),
		ctxArg("Context.MemInfo", func(e *misuseEnv, c *rt.Context) error { _, _, err := c.MemInfo(); return err }),
		ctxArg("Context.StreamPriorityRange", func(e *misuseEnv, c *rt.Context) error { _, _, err := c.StreamPriorityRange(); return err }),
		ctxArg("Context.NewGraph", func(e *misuseEnv, c *rt.Context) error { _, err := c.NewGraph(); return err }),
		ctxArg("Context.Release", func(e *misuseEnv, c *rt.Context) error { return c.Release() }),
		ctxArg("Alloc", func(e *misuseEnv, c *rt.Context) error { _, err := rt.Alloc[float32](c, 4); return err }),
		ctxArg("AllocFrom", func(e *misuseEnv, c *rt.Context) error { _, err := rt.AllocFrom(c, four); return err }),
		ctxArg("AllocPitched", func(e *misuseEnv, c *rt.Context) error { _, err := rt.AllocPitched[float32](c, 4, 4); return err }),
		ctxArg("AllocPinned", func(e *misuseEnv, c *rt.Context) error { _, err := rt.AllocPinned[float32](c, 4); return err }),
		ctxArg("CopyHtoD", func(e *misuseEnv, c *rt.Context) error { return rt.CopyHtoD(c, e.buf.Ptr, four) }),
		ctxArg("CopyDtoH", func(e *misuseEnv, c *rt.Context) error { return rt.CopyDtoH(c, four, e.buf.Ptr) }),
		ctxArg("Copy2D.Run", func(e *misuseEnv, c *rt.Context) error {
			return rt.Copy2D{SrcHost: unsafe.Pointer(&four[0]), SrcPitch: 16, DstDevice: e.buf.Ptr.Addr(), DstPitch: 16, WidthBytes: 16, Height: 1}.Run(c)
		}),
		ctxArg("Copy3D.Run", func(e *misuseEnv, c *rt.Context) error {
			return rt.Copy3D{Src: rt.CopySide{Host: unsafe.Pointer(&four[0]), Pitch: 16, Height: 1}, Dst: rt.DeviceSide(e.buf.Ptr.Addr(), 16, 1), WidthBytes: 16, Height: 1, Depth: 1}.Run(c)
		}),
		ctxArg("NewArray", func(e *misuseEnv, c *rt.Context) error { _, err := texobj.NewArray(c, arrayDesc); return err }),
		ctxArg("NewTexture", func(e *misuseEnv, c *rt.Context) error {
			_, err := texobj.NewTexture(c, texobj.LinearResource(e.buf.Ptr.Addr(), rt.FormatFloat, 1, e.buf.Len), rt.TextureDesc{})
			return err
		}),
		[]misuseCase{
			noPanic("Context.Device", "nil context", func(e *misuseEnv) { (*rt.Context)(nil).Device() }),
			noPanic("Context.Driver", "nil context", func(e *misuseEnv) { (*rt.Context)(nil).Driver() }),
			noPanic("Context.Handle", "nil context", func(e *misuseEnv) { (*rt.Context)(nil).Handle() }),
			noPanic("Context.IsPrimary", "nil context", func(e *misuseEnv) { (*rt.Context)(nil).IsPrimary() }),
			noPanic("Context.String", "zero Context", func(e *misuseEnv) { _ = (&rt.Context{}).String() }),
			noPanic("Context.NullStream", "nil context", func(e *misuseEnv) { (*rt.Context)(nil).NullStream() }),
			{api: "Context.NullStream", what: "work on a nil context's NULL stream", want: badHandle, run: func(e *misuseEnv) error {
				return e.buf.CopyFromAsync((*rt.Context)(nil).NullStream(), four)
			}},
			{api: "Context.Release", what: "created context released twice", want: badContext, run: func(e *misuseEnv) error {
				c, err := e.devs[0].NewContext(0)
				if err != nil {
					return err
				}
				if err := c.Release(); err != nil {
					return err
				}
				return c.Release()
			}},
			{api: "Context.Release", what: "primary context released twice through one value", want: badContext, run: func(e *misuseEnv) error {
				c, err := e.devs[0].Primary()
				if err != nil {
					return err
				}
				if err := c.Release(); err != nil {
					return err
				}
				return c.Release()
			}},
			{api: "Context.Release", what: "a stream of a primary context after its last retain", want: badContext, needs: needsTwo, run: func(e *misuseEnv) error {
				c, err := e.devs[1].Primary() // e.far holds another retain
				if err != nil {
					return err
				}
				s, err := c.NewStream()
				if err != nil {
					return err
				}
				if err := c.Release(); err != nil {
					return err
				}
				if err := s.Synchronize(); err != nil {
					return err // must not fail: e.far keeps the context
				}
				if err := s.Destroy(); err != nil {
					return err
				}
				// Now drop every retain: the context goes, and so do its streams.
				s2, err := e.far.NewStream()
				if err != nil {
					return err
				}
				if err := e.far.Release(); err != nil {
					return err
				}
				e.far, err = e.devs[1].Primary()
				if err != nil {
					return err
				}
				return s2.Synchronize()
			}},
			{api: "Current", what: "no current context", want: badContext, run: func(e *misuseEnv) error { _, err := rt.Current(); return err }},
		},
	)
}

func deviceCases() []misuseCase {
	return cat(
		deviceRecv("Device.Name", func(e *misuseEnv, d rt.Device) error { _, err := d.Name(); return err }),
		deviceRecv("Device.Attribute", func(e *misuseEnv, d rt.Device) error { _, err := d.Attribute(rt.AttrWarpSize); return err }),
		deviceRecv("Device.TotalMem", func(e *misuseEnv, d rt.Device) error { _, err := d.TotalMem(); return err }),
		deviceRecv("Device.ComputeCapability", func(e *misuseEnv, d rt.Device) error { _, _, err := d.ComputeCapability(); return err }),
		deviceRecv("Device.Primary", func(e *misuseEnv, d rt.Device) error { _, err := d.Primary(); return err }),
		deviceRecv("Device.NewContext", func(e *misuseEnv, d rt.Device) error { _, err := d.NewContext(0); return err }),
		deviceRecv("Device.MemPool", func(e *misuseEnv, d rt.Device) error { _, err := d.MemPool(); return err }),
		deviceRecv("Device.NewMemPool", func(e *misuseEnv, d rt.Device) error { _, err := d.NewMemPool(0); return err }),
		deviceRecv("Device.CanAccessPeer", func(e *misuseEnv, d rt.Device) error { _, err := d.CanAccessPeer(e.devs[0]); return err }),
		deviceRecv("Device.CanAccessPeer", func(e *misuseEnv, d rt.Device) error { _, err := e.devs[0].CanAccessPeer(d); return err }),
		deviceRecv("Device.P2PAttribute", func(e *misuseEnv, d rt.Device) error {
			_, err := d.P2PAttribute(e.devs[0], rt.P2PAccessSupported)
			return err
		}),
		deviceRecv("Kernel.Attribute", func(e *misuseEnv, d rt.Device) error { _, err := e.vecAdd.Attribute(d, rt.FuncNumRegs); return err }),
		deviceRecv("Kernel.Attributes", func(e *misuseEnv, d rt.Device) error { _, err := e.vecAdd.Attributes(d); return err }),
		deviceRecv("Kernel.SetAttribute", func(e *misuseEnv, d rt.Device) error {
			return e.vecAdd.SetAttribute(d, rt.FuncPreferredSharedMemoryCarveout, 50)
		}),
		deviceRecv("Kernel.SetMaxDynamicSharedMemory", func(e *misuseEnv, d rt.Device) error { return e.vecAdd.SetMaxDynamicSharedMemory(d, 1024) }),
		deviceRecv("Kernel.SetPreferredCarveout", func(e *misuseEnv, d rt.Device) error { return e.vecAdd.SetPreferredCarveout(d, 50) }),
		deviceRecv("Kernel.AllowNonPortableClusterSize", func(e *misuseEnv, d rt.Device) error { return e.vecAdd.AllowNonPortableClusterSize(d, true) }),
		[]misuseCase{
			{api: "Device.CanAccessPeer", what: "device of another driver", want: badDevice, needs: needsPeer, run: func(e *misuseEnv) error {
				fd, _ := rt.DevicesOf(e.fakeDriver)
				_, err := e.devs[0].CanAccessPeer(fd[0])
				return err
			}},
			noPanic("Device.Ordinal", "zero Device", func(e *misuseEnv) { rt.Device{}.Ordinal() }),
			noPanic("Device.Driver", "zero Device", func(e *misuseEnv) { rt.Device{}.Driver() }),
			noPanic("Device.String", "zero Device", func(e *misuseEnv) { _ = rt.Device{}.String() }),
		},
	)
}

func streamCases() []misuseCase {
	return cat(
		streamRecv("Stream.Synchronize", func(e *misuseEnv, s *rt.Stream) error { return s.Synchronize() }),
		streamRecv("Stream.Done", func(e *misuseEnv, s *rt.Stream) error { _, err := s.Done(); return err }),
		streamRecv("Stream.Destroy", func(e *misuseEnv, s *rt.Stream) error { return s.Destroy() }),
		streamRecv("Stream.Priority", func(e *misuseEnv, s *rt.Stream) error { _, err := s.Priority(); return err }),
		streamRecv("Stream.WaitEvent", func(e *misuseEnv, s *rt.Stream) error { return s.WaitEvent(e.event(e.ctx)) }),
		streamRecv("Stream.WaitEventWithFlags", func(e *misuseEnv, s *rt.Stream) error { return s.WaitEventWithFlags(e.event(e.ctx), 0) }),
		streamRecv("Stream.LaunchHostFunc", func(e *misuseEnv, s *rt.Stream) error { return s.LaunchHostFunc(func() {}) }),
		eventRecv("Stream.WaitEvent", func(e *misuseEnv, ev *rt.Event) error { return e.s.WaitEvent(ev) }),
		[]misuseCase{
			noPanic("Stream.Context", "nil stream", func(e *misuseEnv) { (*rt.Stream)(nil).Context() }),
			noPanic("Stream.Handle", "nil stream", func(e *misuseEnv) { (*rt.Stream)(nil).Handle() }),
			{api: "Stream.LaunchHostFunc", what: "nil function", want: badValue, run: func(e *misuseEnv) error { return e.s.LaunchHostFunc(nil) }},
			{api: "Stream.WaitEvent", what: "event of another driver", want: badHandle, run: func(e *misuseEnv) error {
				return e.s.WaitEvent(e.event(e.fake))
			}},
			{api: "Stream.Destroy", what: "destroyed twice", want: badHandle, run: func(e *misuseEnv) error { return e.deadStream().Destroy() }},
		},
	)
}

func eventCases() []misuseCase {
	return cat(
		eventRecv("Event.Record", func(e *misuseEnv, ev *rt.Event) error { return ev.Record(e.s) }),
		eventRecv("Event.RecordWithFlags", func(e *misuseEnv, ev *rt.Event) error { return ev.RecordWithFlags(e.s, 0) }),
		eventRecv("Event.Synchronize", func(e *misuseEnv, ev *rt.Event) error { return ev.Synchronize() }),
		eventRecv("Event.Query", func(e *misuseEnv, ev *rt.Event) error { _, err := ev.Query(); return err }),
		eventRecv("Event.Destroy", func(e *misuseEnv, ev *rt.Event) error { return ev.Destroy() }),
		eventRecv("Elapsed", func(e *misuseEnv, ev *rt.Event) error { _, err := rt.Elapsed(ev, e.event(e.ctx)); return err }),
		eventRecv("Elapsed", func(e *misuseEnv, ev *rt.Event) error { _, err := rt.Elapsed(e.event(e.ctx), ev); return err }),
		// An event is recorded on a stream of its own context (INVALID_HANDLE).
		expect(streamArg("Event.Record", func(e *misuseEnv, s *rt.Stream) error { return e.event(e.ctx).Record(s) }), "stream of another device", badHandle),
		expect(streamArg("Event.RecordWithFlags", func(e *misuseEnv, s *rt.Stream) error { return e.event(e.ctx).RecordWithFlags(s, 0) }), "stream of another device", badHandle),
		[]misuseCase{
			{api: "Event.Record", what: "stream of another context", want: badHandle, run: func(e *misuseEnv) error {
				s, err := e.ctx2.NewStream()
				if err != nil {
					return err
				}
				defer s.Destroy()
				return e.event(e.ctx).Record(s)
			}},
			{api: "Elapsed", what: "events of two drivers", want: badHandle, run: func(e *misuseEnv) error {
				_, err := rt.Elapsed(e.event(e.ctx), e.event(e.fake))
				return err
			}},
			// cuEventCreate's flags: an interprocess event has no timing, and
			// bits CUDA does not define are refused.
			{api: "Context.NewEvent", what: "EventInterprocess without EventDisableTiming", want: badValue, run: func(e *misuseEnv) error {
				return newEvent(e, rt.EventInterprocess)
			}},
			{api: "Context.NewEvent", what: "a flag bit CUDA does not define (8)", want: badValue, run: func(e *misuseEnv) error {
				return newEvent(e, 8)
			}},
			{api: "Context.NewEvent", what: "EventInterprocess with EventDisableTiming (legal)", want: okay, run: func(e *misuseEnv) error {
				return newEvent(e, rt.EventInterprocess|rt.EventDisableTiming)
			}},
		},
	)
}

// newEvent makes an event with flags in e's context and destroys it.
func newEvent(e *misuseEnv, flags uint32) error {
	ev, err := e.ctx.NewEvent(flags)
	if err == nil {
		err = ev.Destroy()
	}
	return err
}

func memoryCases() []misuseCase {
	freedCopy := badValue
	return cat(
		bufRecv("Buffer.CopyFrom", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.CopyFrom(four) }),
		bufRecv("Buffer.CopyTo", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.CopyTo(four) }),
		bufRecv("Buffer.ToHost", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { _, err := b.ToHost(); return err }),
		bufRecv("Buffer.Zero", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.Zero() }),
		bufRecv("Buffer.Fill", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.Fill(1) }),
		drop(bufRecv("Buffer.Free", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.Free() }), "zero Buffer"),
		bufRecv("Buffer.CopyFromBuffer", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return e.buf.CopyFromBuffer(b) }),
		bufRecv("Buffer.CopyFromBuffer", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error {
			return b.CopyFromBuffer(rt.Buffer[float32]{Ptr: e.buf.Ptr, Len: 4 /* no context */})
		}),
		bufRecv("Buffer.CopyFromAsync", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.CopyFromAsync(e.s, four) }),
		bufRecv("Buffer.CopyToAsync", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.CopyToAsync(e.s, four) }),
		bufRecv("Buffer.ToHostAsync", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { _, err := b.ToHostAsync(e.s); return err }),
		bufRecv("Buffer.ZeroAsync", nil, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.ZeroAsync(e.s) }),
		bufRecv("Buffer.FillAsync", nil, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.FillAsync(e.s, 1) }),
		bufRecv("Buffer.CopyFromBufferAsync", freedCopy, func(e *misuseEnv, b rt.Buffer[float32]) error { return e.buf.CopyFromBufferAsync(e.s, b) }),
		needing(needsAsync, drop(bufRecv("Buffer.FreeAsync", nil, func(e *misuseEnv, b rt.Buffer[float32]) error { return b.FreeAsync(e.s) }), "zero Buffer")),
		streamArg("Buffer.CopyFromAsync", func(e *misuseEnv, s *rt.Stream) error { return e.buf.CopyFromAsync(s, four) }),
		streamArg("Buffer.CopyToAsync", func(e *misuseEnv, s *rt.Stream) error { return e.buf.CopyToAsync(s, four) }),
		streamArg("Buffer.ToHostAsync", func(e *misuseEnv, s *rt.Stream) error {
			_, err := e.buf.ToHostAsync(s)
			if err == nil {
				err = e.ctx.Synchronize()
			}
			return err
		}),
		streamArg("Buffer.ZeroAsync", func(e *misuseEnv, s *rt.Stream) error { return e.buf.ZeroAsync(s) }),
		streamArg("Buffer.FillAsync", func(e *misuseEnv, s *rt.Stream) error { return e.buf.FillAsync(s, 1) }),
		streamArg("Buffer.CopyFromBufferAsync", func(e *misuseEnv, s *rt.Stream) error {
			src := bufIn(e.ctx)
			defer src.Free()
			return e.buf.CopyFromBufferAsync(s, src)
		}),
		streamArg("Pitched.CopyFromAsync", func(e *misuseEnv, s *rt.Stream) error {
			p, err := rt.AllocPitched[float32](e.ctx, 2, 2)
			if err != nil {
				return err
			}
			defer p.Free()
			return p.CopyFromAsync(s, four)
		}),
		streamArg("Pitched.CopyToAsync", func(e *misuseEnv, s *rt.Stream) error {
			p, err := rt.AllocPitched[float32](e.ctx, 2, 2)
			if err != nil {
				return err
			}
			defer p.Free()
			err = p.CopyToAsync(s, make([]float32, 4))
			if err == nil {
				err = e.ctx.Synchronize()
			}
			return err
		}),
		streamArg("Pitched.CopyFromPitchedAsync", func(e *misuseEnv, s *rt.Stream) error {
			p, err := rt.AllocPitched[float32](e.ctx, 2, 2)
			if err != nil {
				return err
			}
			defer p.Free()
			q, err := rt.AllocPitched[float32](e.ctx, 2, 2)
			if err != nil {
				return err
			}
			defer q.Free()
			err = p.CopyFromPitchedAsync(s, q)
			if err == nil {
				err = e.ctx.Synchronize()
			}
			return err
		}),
		[]misuseCase{
			{api: "Buffer.Free", what: "freed twice", want: badValue, run: func(e *misuseEnv) error { return e.freed().Free() }},
			{api: "Buffer.Free", what: "zero Buffer (cuMemFree(0))", want: okay, run: func(e *misuseEnv) error { return rt.Buffer[float32]{}.Free() }},
			{api: "Buffer.FreeAsync", what: "zero Buffer", want: okay, needs: needsAsync, run: func(e *misuseEnv) error { return rt.Buffer[float32]{}.FreeAsync(e.s) }},
			{api: "Buffer.CopyFrom", what: "more elements than the buffer", want: badValue, run: func(e *misuseEnv) error {
				return e.buf.CopyFrom(make([]float32, e.buf.Len+1))
			}},
			{api: "Buffer.CopyFromBuffer", what: "source of another driver", want: badHandle, run: func(e *misuseEnv) error {
				src, err := rt.Alloc[float32](e.fake, 4)
				if err != nil {
					return err
				}
				return e.buf.CopyFromBuffer(src)
			}},
			noPanic("Buffer.Context", "zero Buffer", func(e *misuseEnv) { rt.Buffer[float32]{}.Context() }),
			noPanic("Buffer.Bytes", "zero Buffer", func(e *misuseEnv) { rt.Buffer[float32]{}.Bytes() }),
			noPanic("Buffer.Const", "zero Buffer", func(e *misuseEnv) { rt.Buffer[float32]{}.Const() }),
			{api: "Pitched.CopyFrom", what: "zero Pitched", want: badValue, run: func(e *misuseEnv) error { return rt.Pitched[float32]{Width: 2, Height: 2}.CopyFrom(four) }},
			{api: "Pitched.CopyTo", what: "zero Pitched", want: badValue, run: func(e *misuseEnv) error { return rt.Pitched[float32]{Width: 2, Height: 2}.CopyTo(four) }},
			{api: "Pitched.CopyFromAsync", what: "zero Pitched", want: badValue, run: func(e *misuseEnv) error {
				return rt.Pitched[float32]{Width: 2, Height: 2}.CopyFromAsync(e.s, four)
			}},
			{api: "Pitched.CopyToAsync", what: "zero Pitched", want: badValue, run: func(e *misuseEnv) error {
				return rt.Pitched[float32]{Width: 2, Height: 2}.CopyToAsync(e.s, four)
			}},
			{api: "Pitched.CopyFromPitchedAsync", what: "zero Pitched source", want: badValue, run: func(e *misuseEnv) error {
				p, err := rt.AllocPitched[float32](e.ctx, 2, 2)
				if err != nil {
					return err
				}
				defer p.Free()
				return p.CopyFromPitchedAsync(e.s, rt.Pitched[float32]{Width: 2, Height: 2})
			}},
			{api: "Pitched.Free", what: "Pitched no AllocPitched made", want: badValue, run: func(e *misuseEnv) error {
				return rt.Pitched[float32]{Ptr: e.buf.Ptr, Width: 2, Height: 2, Pitch: 512}.Free()
			}},
			noPanic("Pitched.Context", "zero Pitched", func(e *misuseEnv) { rt.Pitched[float32]{}.Context() }),
			noPanic("Pitched.Row", "zero Pitched", func(e *misuseEnv) { rt.Pitched[float32]{}.Row(3) }),
			noPanic("Pitched.String", "zero Pitched", func(e *misuseEnv) { _ = rt.Pitched[float32]{}.String() }),
			noPanic("PinnedBuffer.Free", "nil PinnedBuffer", func(e *misuseEnv) { (*rt.PinnedBuffer[float32])(nil).Free() }),
			noPanic("PinnedBuffer.Len", "nil PinnedBuffer", func(e *misuseEnv) { (*rt.PinnedBuffer[float32])(nil).Len() }),
			noPanic("PinnedBuffer.Slice", "nil PinnedBuffer", func(e *misuseEnv) { (*rt.PinnedBuffer[float32])(nil).Slice() }),
			{api: "PinnedBuffer.Slice", what: "after Free", want: okay, needs: needsMemOps, run: func(e *misuseEnv) error {
				p, err := rt.AllocPinned[float32](e.ctx, 4)
				if err != nil {
					return err
				}
				if err := p.Free(); err != nil {
					return err
				}
				if p.Slice() != nil || p.Len() != 0 {
					return rt.Errorf("test", rt.ErrUnknown, "a freed PinnedBuffer still has memory")
				}
				return p.Free()
			}},
		},
	)
}

func sizeCases() []misuseCase {
	return []misuseCase{
		{api: "Alloc", what: "2^61 float64: bytes overflow", want: badValue, run: func(e *misuseEnv) error { _, err := rt.Alloc[float64](e.ctx, 1<<61); return err }},
		{api: "Alloc", what: "2^60 [16]byte: bytes overflow", want: badValue, run: func(e *misuseEnv) error { _, err := rt.Alloc[[16]byte](e.ctx, 1<<60); return err }},
		{api: "Alloc", what: "negative length", want: badValue, run: func(e *misuseEnv) error { _, err := rt.Alloc[float32](e.ctx, -1); return err }},
		{api: "Alloc", what: "2^63 bytes", want: outOfMemory, run: func(e *misuseEnv) error { _, err := rt.Alloc[float64](e.ctx, 1<<60); return err }},
		{api: "Alloc", what: "2^45 bytes", want: outOfMemory, run: func(e *misuseEnv) error { _, err := rt.Alloc[byte](e.ctx, 1<<45); return err }},
		{api: "AllocPitched", what: "2^31×2^31 float64: bytes overflow", want: badValue, run: func(e *misuseEnv) error {
			_, err := rt.AllocPitched[float64](e.ctx, 1<<31, 1<<31)
			return err
		}},
		{api: "AllocPitched", what: "2^20×2^20 float64", want: outOfMemory, run: func(e *misuseEnv) error {
			_, err := rt.AllocPitched[float64](e.ctx, 1<<20, 1<<20)
			return err
		}},
		{api: "AllocPitched", what: "negative width", want: badValue, run: func(e *misuseEnv) error { _, err := rt.AllocPitched[float64](e.ctx, -1, 2); return err }},
		{api: "AllocPinned", what: "2^61 float64: bytes overflow", want: badValue, needs: needsMemOps, run: func(e *misuseEnv) error {
			_, err := rt.AllocPinned[float64](e.ctx, 1<<61)
			return err
		}},
		{api: "AllocPinned", what: "2^45 bytes", want: outOfMemory, needs: needsMemOps, run: func(e *misuseEnv) error {
			_, err := rt.AllocPinned[byte](e.ctx, 1<<45)
			return err
		}},
		{api: "AllocPinned", what: "a type with Go pointers", want: badValue, needs: needsMemOps, run: func(e *misuseEnv) error {
			_, err := rt.AllocPinned[*int](e.ctx, 1)
			return err
		}},
		{api: "Copy2D.Run", what: "a pitch times rows that overflows", want: badValue, needs: needsMemOps, run: func(e *misuseEnv) error {
			return rt.Copy2D{SrcHost: unsafe.Pointer(&four[0]), SrcPitch: 16, DstDevice: e.buf.Ptr.Addr(), DstPitch: 1 << 62, WidthBytes: 16, Height: 1 << 10}.Run(e.ctx)
		}},
		{api: "Copy2D.RunAsync", what: "a pitch times rows that overflows", want: badValue, needs: needsMemOps, run: func(e *misuseEnv) error {
			return rt.Copy2D{SrcHost: unsafe.Pointer(&four[0]), SrcPitch: 1 << 62, DstDevice: e.buf.Ptr.Addr(), DstPitch: 16, WidthBytes: 16, Height: 1 << 10}.RunAsync(e.s)
		}},
		{api: "Copy3D.Run", what: "a pitch times rows that overflows", want: badValue, needs: needsTex, run: func(e *misuseEnv) error {
			return rt.Copy3D{Src: rt.CopySide{Host: unsafe.Pointer(&four[0]), Pitch: 1 << 62, Height: 1 << 10}, Dst: rt.DeviceSide(e.buf.Ptr.Addr(), 1<<62, 1<<10), WidthBytes: 16, Height: 1 << 10, Depth: 1 << 10}.Run(e.ctx)
		}},
		{api: "AllocAsync", what: "2^61 float64: bytes overflow", want: badValue, needs: needsAsync, run: func(e *misuseEnv) error {
			_, err := rt.AllocAsync[float64](e.s, 1<<61)
			return err
		}},
		{api: "AllocAsync", what: "2^45 bytes", want: outOfMemory, needs: needsAsync, run: func(e *misuseEnv) error {
			_, err := rt.AllocAsync[byte](e.s, 1<<45)
			if err == nil {
				err = e.s.Synchronize()
			}
			return err
		}},
	}
}

func asyncCases() []misuseCase {
	return cat(
		needing(needsAsync, drop(streamRecv("AllocAsync", func(e *misuseEnv, s *rt.Stream) error {
			_, err := rt.AllocAsync[float32](s, 4)
			return err
		}), "nil stream")),
		needing(needsAsync, drop(streamRecv("AllocFromPool", func(e *misuseEnv, s *rt.Stream) error {
			p, err := e.devs[0].MemPool()
			if err != nil {
				return err
			}
			_, err = rt.AllocFromPool[float32](s, p, 4)
			return err
		}), "nil stream")),
		needing(needsMemOps, drop(streamRecv("Copy2D.RunAsync", func(e *misuseEnv, s *rt.Stream) error {
			return rt.Copy2D{SrcHost: unsafe.Pointer(&four[0]), SrcPitch: 16, DstDevice: e.buf.Ptr.Addr(), DstPitch: 16, WidthBytes: 16, Height: 1}.RunAsync(s)
		}), "nil stream")),
		needing(needsTex, drop(streamRecv("Copy3D.RunAsync", func(e *misuseEnv, s *rt.Stream) error {
			return rt.Copy3D{Src: rt.CopySide{Host: unsafe.Pointer(&four[0]), Pitch: 16, Height: 1}, Dst: rt.DeviceSide(e.buf.Ptr.Addr(), 16, 1), WidthBytes: 16, Height: 1, Depth: 1}.RunAsync(s)
		}), "nil stream")),
		needing(needsAsync, streamArg("Buffer.FreeAsync", func(e *misuseEnv, s *rt.Stream) error {
			b, err := rt.AllocAsync[float32](e.s, 64)
			if err != nil {
				return err
			}
			if err := e.s.Synchronize(); err != nil {
				return err
			}
			if err := b.FreeAsync(s); err != nil {
				b.Free()
				return err
			}
			return e.ctx.Synchronize()
		})),
		drop(handleRecv("AllocFromPool", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error {
			_, err := rt.AllocFromPool[float32](e.s, p, 4)
			return err
		}), "nil"), // a nil pool is the device's current one
		handleRecv("MemPool.Attribute", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error {
			_, err := p.Attribute(rt.PoolUsedMemCurrent)
			return err
		}),
		handleRecv("MemPool.SetAttribute", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error {
			return p.SetAttribute(rt.PoolReleaseThreshold, 0)
		}),
		handleRecv("MemPool.ReleaseThreshold", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error {
			_, err := p.ReleaseThreshold()
			return err
		}),
		handleRecv("MemPool.SetReleaseThreshold", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error {
			return p.SetReleaseThreshold(0)
		}),
		handleRecv("MemPool.Trim", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error { return p.Trim(0) }),
		handleRecv("MemPool.Destroy", needsAsync, newPool, (*rt.MemPool).Destroy, func(e *misuseEnv, p *rt.MemPool) error { return p.Destroy() }),
		[]misuseCase{
			// A nil stream with no current context is device 0's primary
			// context's NULL stream, as for a launch (of rt.Default's driver).
			{api: "AllocAsync", what: "nil stream, no current context", want: codes(rt.Success, rt.ErrNotSupported), run: func(e *misuseEnv) error {
				b, err := rt.AllocAsync[float32](nil, 4)
				if err == nil {
					err = b.Free()
				}
				return err
			}},
			{api: "AllocFromPool", what: "nil stream, no current context", want: codes(rt.Success, rt.ErrInvalidHandle), needs: needsAsync, run: func(e *misuseEnv) error {
				p, err := e.devs[0].MemPool()
				if err != nil {
					return err
				}
				b, err := rt.AllocFromPool[float32](nil, p, 4) // e.d's pool: of another driver unless e.d is rt.Default's
				if err == nil {
					err = b.Free()
				}
				return err
			}},
			{api: "Copy2D.RunAsync", what: "nil stream, no current context: nothing to copy", want: codes(rt.Success, rt.ErrInvalidValue, rt.ErrNotSupported), run: func(e *misuseEnv) error {
				return rt.Copy2D{}.RunAsync(nil)
			}},
			{api: "Copy3D.RunAsync", what: "nil stream, no current context: no sides", want: codes(rt.ErrInvalidValue, rt.ErrNotSupported), run: func(e *misuseEnv) error {
				return rt.Copy3D{}.RunAsync(nil)
			}},
			{api: "AllocFromPool", what: "pool of another driver", want: badHandle, needs: needsAsync, run: func(e *misuseEnv) error {
				// A pool that claims to be of the fake driver's device.
				p, err := e.devs[0].MemPool()
				if err != nil {
					return err
				}
				fs := e.fakeStream()
				_, err = rt.AllocFromPool[float32](fs, p, 4)
				return err
			}},
			noPanic("MemPool.Device", "nil pool", func(e *misuseEnv) { (*rt.MemPool)(nil).Device() }),
			noPanic("MemPool.Handle", "nil pool", func(e *misuseEnv) { (*rt.MemPool)(nil).Handle() }),
			{api: "MemPool.Destroy", what: "the device's own pool", want: codes(rt.ErrNotPermitted), needs: needsAsync, run: func(e *misuseEnv) error {
				p, err := e.devs[0].MemPool()
				if err != nil {
					return err
				}
				return p.Destroy()
			}},
		},
	)
}

func graphCases() []misuseCase {
	g := func(api string, call func(e *misuseEnv, g *rt.Graph) error) []misuseCase {
		return handleRecv(api, needsGraphs, newGraph, (*rt.Graph).Destroy, call)
	}
	x := func(api string, call func(e *misuseEnv, x *rt.GraphExec) error) []misuseCase {
		return handleRecv(api, needsGraphs, newExec, (*rt.GraphExec).Destroy, call)
	}
	return cat(
		g("Graph.Destroy", func(e *misuseEnv, g *rt.Graph) error { return g.Destroy() }),
		g("Graph.Nodes", func(e *misuseEnv, g *rt.Graph) error { _, err := g.Nodes(); return err }),
		g("Graph.NodesOfType", func(e *misuseEnv, g *rt.Graph) error { _, err := g.NodesOfType(rt.NodeKernel); return err }),
		g("Graph.NodeType", func(e *misuseEnv, g *rt.Graph) error { _, err := g.NodeType(rt.GraphNode{}); return err }),
		g("Graph.AddEmpty", func(e *misuseEnv, g *rt.Graph) error { _, err := g.AddEmpty(); return err }),
		g("Graph.AddChild", func(e *misuseEnv, g *rt.Graph) error {
			c, err := e.ctx.NewGraph()
			if err != nil {
				return err
			}
			defer c.Destroy()
			_, err = g.AddChild(c)
			return err
		}),
		g("Graph.AddChild", func(e *misuseEnv, c *rt.Graph) error {
			g, err := e.ctx.NewGraph()
			if err != nil {
				return err
			}
			defer g.Destroy()
			_, err = g.AddChild(c)
			return err
		}),
		g("Graph.NewCondition", func(e *misuseEnv, g *rt.Graph) error { _, err := g.NewCondition(0, true); return err }),
		g("Graph.AddIf", func(e *misuseEnv, g *rt.Graph) error { _, _, err := g.AddIf(1); return err }),
		g("Graph.AddIfElse", func(e *misuseEnv, g *rt.Graph) error { _, _, _, err := g.AddIfElse(1); return err }),
		g("Graph.AddWhile", func(e *misuseEnv, g *rt.Graph) error { _, _, err := g.AddWhile(1); return err }),
		g("Graph.AddSwitch", func(e *misuseEnv, g *rt.Graph) error { _, _, err := g.AddSwitch(1, 2); return err }),
		g("Graph.Instantiate", func(e *misuseEnv, g *rt.Graph) error { _, err := g.Instantiate(); return err }),
		g("Graph.CaptureInto", func(e *misuseEnv, g *rt.Graph) error {
			return g.CaptureInto(e.s, func(s *rt.Stream) error { return nil })
		}),
		g("Stream.BeginCaptureInto", func(e *misuseEnv, g *rt.Graph) error {
			err := e.s.BeginCaptureInto(g, rt.CaptureRelaxed)
			if err == nil {
				e.s.EndCapture()
			}
			return err
		}),
		x("GraphExec.Launch", func(e *misuseEnv, x *rt.GraphExec) error { return x.Launch(e.s) }),
		x("GraphExec.Upload", func(e *misuseEnv, x *rt.GraphExec) error { return x.Upload(e.s) }),
		x("GraphExec.Destroy", func(e *misuseEnv, x *rt.GraphExec) error { return x.Destroy() }),
		// The zero KernelNode is rt.ErrInvalidValue (SetNode's documented answer).
		expect(x("Kernel.SetNode", func(e *misuseEnv, x *rt.GraphExec) error {
			if x == nil {
				return e.vecAdd.SetNode(rt.KernelNode{}, rt.Config{}, make([]byte, 28)) // the zero KernelNode
			}
			return e.vecAdd.SetNode(x.KernelNode(rt.GraphNode{}), rt.Config{}, make([]byte, 28))
		}), "nil", badValue),
		needing(needsGraphs, streamArg("GraphExec.Launch", func(e *misuseEnv, s *rt.Stream) error {
			x, err := newExec(e)
			if err != nil {
				return err
			}
			defer x.Destroy()
			return x.Launch(s)
		})),
		needing(needsGraphs, streamArg("GraphExec.Upload", func(e *misuseEnv, s *rt.Stream) error {
			x, err := newExec(e)
			if err != nil {
				return err
			}
			defer x.Destroy()
			return x.Upload(s)
		})),
		streamRecv("Stream.BeginCapture", func(e *misuseEnv, s *rt.Stream) error { return s.BeginCapture(rt.CaptureRelaxed) }),
		streamRecv("Stream.EndCapture", func(e *misuseEnv, s *rt.Stream) error { _, err := s.EndCapture(); return err }),
		streamRecv("Stream.Capture", func(e *misuseEnv, s *rt.Stream) error {
			_, err := s.Capture(func(*rt.Stream) error { return nil })
			return err
		}),
		streamRecv("Stream.CaptureStatus", func(e *misuseEnv, s *rt.Stream) error { _, err := s.CaptureStatus(); return err }),
		streamRecv("Stream.CapturedNode", func(e *misuseEnv, s *rt.Stream) error { _, err := s.CapturedNode(); return err }),
		streamRecv("Stream.BeginCaptureInto", func(e *misuseEnv, s *rt.Stream) error {
			g, err := e.ctx.NewGraph()
			if err != nil {
				return err
			}
			defer g.Destroy()
			return s.BeginCaptureInto(g, rt.CaptureRelaxed)
		}),
		streamRecv("Graph.CaptureInto", func(e *misuseEnv, s *rt.Stream) error {
			g, err := e.ctx.NewGraph()
			if err != nil {
				return err
			}
			defer g.Destroy()
			return g.CaptureInto(s, func(*rt.Stream) error { return nil })
		}),
		[]misuseCase{
			{api: "Stream.Capture", what: "nil function", want: badValue, needs: needsGraphs, run: func(e *misuseEnv) error {
				_, err := e.s.Capture(nil)
				return err
			}},
			{api: "Stream.Capture", what: "a function that panics", want: okay, needs: needsGraphs, run: func(e *misuseEnv) error {
				s, err := e.ctx.NewStream()
				if err != nil {
					return err
				}
				defer s.Destroy()
				func() {
					defer func() { recover() }()
					s.Capture(func(s *rt.Stream) error { panic("in the capture") })
				}()
				st, err := s.CaptureStatus()
				if err == nil && st != rt.CaptureNone {
					err = rt.Errorf("test", rt.ErrIllegalState, "the capture outlived the panic (status %d)", st)
				}
				return err
			}},
			{api: "Graph.CaptureInto", what: "nil function", want: badValue, needs: needsGraphs, run: func(e *misuseEnv) error {
				g, err := e.ctx.NewGraph()
				if err != nil {
					return err
				}
				defer g.Destroy()
				return g.CaptureInto(e.s, nil)
			}},
			{api: "Graph.Destroy", what: "a body after its graph", want: badHandle, needs: needsGraphs, run: func(e *misuseEnv) error {
				g, err := e.ctx.NewGraph()
				if err != nil {
					return err
				}
				c, err := g.NewCondition(0, true)
				if err != nil {
					g.Destroy()
					return err
				}
				_, body, err := g.AddIf(c)
				if err != nil {
					g.Destroy()
					return err
				}
				if err := g.Destroy(); err != nil {
					return err
				}
				_, err = body.AddEmpty()
				return err
			}},
			{api: "Graph.AddSwitch", what: "no bodies", want: badValue, needs: needsGraphs, run: func(e *misuseEnv) error {
				g, err := e.ctx.NewGraph()
				if err != nil {
					return err
				}
				defer g.Destroy()
				_, _, err = g.AddSwitch(0, 0)
				return err
			}},
			noPanic("Graph.Context", "nil graph", func(e *misuseEnv) { (*rt.Graph)(nil).Context() }),
			noPanic("Graph.Handle", "nil graph", func(e *misuseEnv) { (*rt.Graph)(nil).Handle() }),
			noPanic("Graph.String", "nil graph", func(e *misuseEnv) { _ = (*rt.Graph)(nil).String() }),
			noPanic("GraphExec.Context", "nil GraphExec", func(e *misuseEnv) { (*rt.GraphExec)(nil).Context() }),
			noPanic("GraphExec.Handle", "nil GraphExec", func(e *misuseEnv) { (*rt.GraphExec)(nil).Handle() }),
			noPanic("GraphExec.KernelNode", "nil GraphExec", func(e *misuseEnv) { (*rt.GraphExec)(nil).KernelNode(rt.GraphNode{}) }),
		},
	)
}

func libraryCases() []misuseCase {
	nilLib := (*rt.Library)(nil)
	return cat(
		driverArg("Library.Load", func(e *misuseEnv, d rt.Driver) error { _, err := e.lib.Load(d); return err }),
		driverArg("Library.Unload", func(e *misuseEnv, d rt.Driver) error { return e.lib.Unload(d) }),
		driverArg("Library.JITLog", func(e *misuseEnv, d rt.Driver) error { _, err := e.lib.JITLog(d); return err }),
		driverArg("Kernel.Handle", func(e *misuseEnv, d rt.Driver) error { _, err := e.vecAdd.Handle(d); return err }),
		driverArg("Kernel.DriverParams", func(e *misuseEnv, d rt.Driver) error { _, err := e.vecAdd.DriverParams(d); return err }),
		driverArg("Kernel.Placed", func(e *misuseEnv, d rt.Driver) error { _, err := e.vecAdd.Placed(d); return err }),
		[]misuseCase{
			{api: "Library.Load", what: "nil library", want: badHandle, run: func(e *misuseEnv) error { _, err := nilLib.Load(e.d); return err }},
			{api: "Library.Unload", what: "nil library", want: badHandle, run: func(e *misuseEnv) error { return nilLib.Unload(e.d) }},
			{api: "Library.SetLoadOptions", what: "nil library", want: badHandle, run: func(e *misuseEnv) error { return nilLib.SetLoadOptions(rt.LoadOptions{}) }},
			{api: "Library.Kernel", what: "nil library", want: badHandle, run: func(e *misuseEnv) error {
				_, err := nilLib.Kernel("vecAdd").Handle(e.d)
				return err
			}},
			// libcuda's lazy loading takes any bytes as PTX text and compiles
			// them at the first kernel lookup (seen on the H200): the error
			// comes from Load or from that lookup, never neither.
			{api: "NewLibrary", what: "an image that is not one", want: codes(rt.ErrInvalidImage, rt.ErrInvalidPTX, rt.ErrInvalidSource, rt.ErrNotFound), run: func(e *misuseEnv) error {
				h, err := rt.NewLibrary("junk", []byte("not an image\x00")).Load(e.d)
				if err == nil {
					_, err = e.d.LibraryKernel(h, "k")
				}
				return err
			}},
			{api: "NewLibrary", what: "no image", want: anyErrorOf(), run: func(e *misuseEnv) error {
				_, err := rt.NewLibrary("empty", nil).Load(e.d)
				return err
			}},
			noPanic("Library.Name", "nil library", func(e *misuseEnv) { nilLib.Name() }),
			noPanic("Library.Image", "nil library", func(e *misuseEnv) { nilLib.Image() }),
		},
	)
}

func anyErrorOf() []rt.Result { return codes(anyError) }

// launchEmpty launches the parameterless kernel with cfg.
func (e *misuseEnv) launchEmpty(cfg rt.Config) error {
	if err := e.empty.Launch(cfg, nil); err != nil {
		return err
	}
	if cfg.Stream != nil && cfg.Stream.Context() != nil {
		return cfg.Stream.Context().Synchronize()
	}
	return nil
}

func kernelCases() []misuseCase {
	nilK := (*rt.Kernel)(nil)
	launch := func(e *misuseEnv, s *rt.Stream) error {
		return e.launchEmpty(rt.Config{Grid: rt.D1(1), Block: rt.D1(32), Stream: s})
	}
	return cat(
		drop(streamRecv("Kernel.Launch", launch), "nil stream"), // nil runs in the current context: its own case
		ctxArg("Kernel.MaxActiveBlocksPerSM", func(e *misuseEnv, c *rt.Context) error {
			_, err := e.vecAdd.MaxActiveBlocksPerSM(c, 128, 0)
			return err
		}),
		ctxArg("Kernel.SuggestBlockSize", func(e *misuseEnv, c *rt.Context) error { _, _, err := e.vecAdd.SuggestBlockSize(c, 0, 0); return err }),
		ctxArg("Kernel.SuggestBlockSizeFunc", func(e *misuseEnv, c *rt.Context) error {
			_, _, err := e.vecAdd.SuggestBlockSizeFunc(c, func(int) int { return 0 }, 0)
			return err
		}),
		[]misuseCase{
			{api: "Kernel.Launch", what: "nil stream, no current context", want: codes(rt.Success, rt.ErrInvalidContext), run: func(e *misuseEnv) error {
				return launch(e, nil)
			}},
			{api: "Kernel.Launch", what: "nil kernel", want: badHandle, run: func(e *misuseEnv) error {
				return nilK.Launch(rt.Config{Stream: e.s}, nil)
			}},
			{api: "Kernel.Launch", what: "a parameter buffer of the wrong size", want: badValue, run: func(e *misuseEnv) error {
				return e.vecAdd.Launch(rt.Config{Stream: e.s}, make([]byte, 27))
			}},
			{api: "Kernel.Launch", what: "a block of 2048 threads", want: badValue, run: func(e *misuseEnv) error {
				return e.launchEmpty(rt.Config{Block: rt.D1(2048), Stream: e.s})
			}},
			{api: "Kernel.Launch", what: "a grid of 2^16 in y", want: badValue, run: func(e *misuseEnv) error {
				return e.launchEmpty(rt.Config{Grid: rt.D2(1, 1<<16), Stream: e.s})
			}},
			{api: "Kernel.Launch", what: "1 MiB of dynamic shared memory", want: badValue, run: func(e *misuseEnv) error {
				return e.launchEmpty(rt.Config{SharedMem: 1 << 20, Stream: e.s})
			}},
			{api: "Kernel.Launch", what: "a cooperative grid that cannot be resident", want: codes(rt.ErrCooperativeLaunchTooLarge), run: func(e *misuseEnv) error {
				return e.launchEmpty(rt.Config{Grid: rt.D1(1 << 20), Block: rt.D1(1024), Cooperative: true, Stream: e.s})
			}},
			{api: "Kernel.Handle", what: "nil kernel", want: badHandle, run: func(e *misuseEnv) error { _, err := nilK.Handle(e.d); return err }},
			{api: "Kernel.DriverParams", what: "nil kernel", want: badHandle, run: func(e *misuseEnv) error { _, err := nilK.DriverParams(e.d); return err }},
			{api: "Kernel.Placed", what: "nil kernel", want: badHandle, run: func(e *misuseEnv) error { _, err := nilK.Placed(e.d); return err }},
			{api: "Kernel.Attribute", what: "nil kernel", want: badHandle, needs: needsAttrs, run: func(e *misuseEnv) error {
				_, err := nilK.Attribute(e.devs[0], rt.FuncNumRegs)
				return err
			}},
			{api: "Kernel.SetNode", what: "nil kernel", want: badHandle, needs: needsGraphs, run: func(e *misuseEnv) error {
				return nilK.SetNode(rt.KernelNode{}, rt.Config{}, nil)
			}},
			{api: "Kernel.MaxActiveBlocksPerSM", what: "block of 0 threads", want: badValue, run: func(e *misuseEnv) error {
				_, err := e.vecAdd.MaxActiveBlocksPerSM(e.ctx, 0, 0)
				return err
			}},
			{api: "Kernel.SuggestBlockSizeFunc", what: "nil function", want: badValue, run: func(e *misuseEnv) error {
				_, _, err := e.vecAdd.SuggestBlockSizeFunc(e.ctx, nil, 0)
				return err
			}},
			noPanic("Kernel.Name", "nil kernel", func(e *misuseEnv) { nilK.Name() }),
			noPanic("Kernel.Params", "nil kernel", func(e *misuseEnv) { nilK.Params() }),
			noPanic("Kernel.ParamSize", "nil kernel", func(e *misuseEnv) { nilK.ParamSize() }),
		},
	)
}

func variableCases() []misuseCase {
	return cat(
		ctxArg("Global.Ptr", func(e *misuseEnv, c *rt.Context) error { _, err := e.scale.Ptr(c); return err }),
		ctxArg("Global.Get", func(e *misuseEnv, c *rt.Context) error { _, err := e.scale.Get(c); return err }),
		ctxArg("Global.Set", func(e *misuseEnv, c *rt.Context) error { return e.scale.Set(c, 1) }),
		ctxArg("Global.Read", func(e *misuseEnv, c *rt.Context) error { return e.scale.Read(c, make([]float32, 1)) }),
		ctxArg("Global.Write", func(e *misuseEnv, c *rt.Context) error { return e.scale.Write(c, []float32{2.5}) }),
		ctxArg("Managed.Ptr", func(e *misuseEnv, c *rt.Context) error { _, err := e.total.Ptr(c); return err }),
		ctxArg("Managed.Get", func(e *misuseEnv, c *rt.Context) error { _, err := e.total.Get(c); return err }),
		ctxArg("Managed.Set", func(e *misuseEnv, c *rt.Context) error { return e.total.Set(c, 100) }),
		ctxArg("Managed.Read", func(e *misuseEnv, c *rt.Context) error { return e.total.Read(c, make([]uint32, 1)) }),
		ctxArg("Managed.Write", func(e *misuseEnv, c *rt.Context) error { return e.total.Write(c, []uint32{100}) }),
		[]misuseCase{
			{api: "NewGlobal", what: "nil library", want: badHandle, run: func(e *misuseEnv) error {
				_, err := rt.NewGlobal[float32](nil, "scale", 1).Get(e.ctx)
				return err
			}},
			{api: "NewManaged", what: "nil library", want: badHandle, run: func(e *misuseEnv) error {
				_, err := rt.NewManaged[uint32](nil, "managedTotal", 1).Get(e.ctx)
				return err
			}},
			{api: "Global.Read", what: "more elements than the variable", want: badValue, run: func(e *misuseEnv) error {
				return e.scale.Read(e.ctx, make([]float32, 2))
			}},
			{api: "Managed.Write", what: "more elements than the variable", want: badValue, run: func(e *misuseEnv) error {
				return e.total.Write(e.ctx, make([]uint32, 2))
			}},
			{api: "View", what: "nil global", want: badValue, run: func(e *misuseEnv) error { _, err := rt.View[uint8, float32](nil); return err }},
			{api: "View", what: "elements that do not divide", want: anyErrorOf(), run: func(e *misuseEnv) error {
				_, err := rt.View[[3]byte](e.scale)
				return err
			}},
			noPanic("Global.Len", "zero-length global", func(e *misuseEnv) { rt.NewGlobal[float32](nil, "x", 0).Len() }),
			noPanic("Global.Name", "global of a nil library", func(e *misuseEnv) { _ = rt.NewGlobal[float32](nil, "x", 0).Name() }),
			noPanic("Managed.Len", "zero-length managed", func(e *misuseEnv) { rt.NewManaged[float32](nil, "x", 0).Len() }),
			noPanic("Managed.Name", "managed of a nil library", func(e *misuseEnv) { _ = rt.NewManaged[float32](nil, "x", 0).Name() }),
		},
	)
}

func textureCases() []misuseCase {
	a := func(api string, call func(e *misuseEnv, a *texobj.Array) error) []misuseCase {
		return handleRecv(api, needsTex, newArray, (*texobj.Array).Destroy, call)
	}
	dev := rt.DeviceSide(0, 0, 0)
	sixteen := make([]float32, 16)
	return cat(
		a("Array.CopyFromDevice", func(e *misuseEnv, a *texobj.Array) error {
			return a.CopyFromDevice(rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
		}),
		a("Array.CopyToDevice", func(e *misuseEnv, a *texobj.Array) error {
			return a.CopyToDevice(rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
		}),
		a("Array.CopyFromDeviceAsync", func(e *misuseEnv, a *texobj.Array) error {
			return a.CopyFromDeviceAsync(e.s, rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
		}),
		a("Array.CopyToDeviceAsync", func(e *misuseEnv, a *texobj.Array) error {
			return a.CopyToDeviceAsync(e.s, rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
		}),
		a("CopyToArray", func(e *misuseEnv, a *texobj.Array) error { return texobj.CopyToArray(a, sixteen) }),
		a("CopyFromArray", func(e *misuseEnv, a *texobj.Array) error { return texobj.CopyFromArray(a, sixteen) }),
		a("CopyToArrayAsync", func(e *misuseEnv, a *texobj.Array) error { return texobj.CopyToArrayAsync(e.s, a, sixteen) }),
		a("CopyFromArrayAsync", func(e *misuseEnv, a *texobj.Array) error {
			return texobj.CopyFromArrayAsync(e.s, a, make([]float32, 16))
		}),
		a("NewSurface", func(e *misuseEnv, a *texobj.Array) error { _, err := texobj.NewSurface(a); return err }),
		handleRecv("Texture.Desc", needsTex, newTexture, (*texobj.Texture).Destroy, func(e *misuseEnv, t *texobj.Texture) error { _, _, err := t.Desc(); return err }),
		// Destroying one again is a no-op (Object is 0 after Destroy).
		expect(handleRecv("Texture.Destroy", needsTex, newTexture, (*texobj.Texture).Destroy, func(e *misuseEnv, t *texobj.Texture) error { return t.Destroy() }), "destroyed", okay),
		expect(handleRecv("Surface.Destroy", needsTex, newSurface, (*texobj.Surface).Destroy, func(e *misuseEnv, s *texobj.Surface) error { return s.Destroy() }), "destroyed", okay),
		needing(needsTex, streamArg("CopyToArrayAsync", func(e *misuseEnv, s *rt.Stream) error {
			a, err := newArray(e)
			if err != nil {
				return err
			}
			defer a.Destroy()
			return texobj.CopyToArrayAsync(s, a, sixteen)
		})),
		needing(needsTex, streamArg("CopyFromArrayAsync", func(e *misuseEnv, s *rt.Stream) error {
			a, err := newArray(e)
			if err != nil {
				return err
			}
			defer a.Destroy()
			err = texobj.CopyFromArrayAsync(s, a, make([]float32, 16))
			if err == nil {
				err = e.ctx.Synchronize()
			}
			return err
		})),
		needing(needsTex, streamArg("Array.CopyFromDeviceAsync", func(e *misuseEnv, s *rt.Stream) error {
			a, err := newArray(e)
			if err != nil {
				return err
			}
			defer a.Destroy()
			return a.CopyFromDeviceAsync(s, rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
		})),
		needing(needsTex, streamArg("Array.CopyToDeviceAsync", func(e *misuseEnv, s *rt.Stream) error {
			a, err := newArray(e)
			if err != nil {
				return err
			}
			defer a.Destroy()
			err = a.CopyToDeviceAsync(s, rt.DeviceSide(e.buf.Ptr.Addr(), 0, 0))
			if err == nil {
				err = e.ctx.Synchronize()
			}
			return err
		})),
		[]misuseCase{
			{api: "Array.Destroy", what: "destroyed twice", want: okay, needs: needsTex, run: func(e *misuseEnv) error {
				a, err := newArray(e)
				if err != nil {
					return err
				}
				if err := a.Destroy(); err != nil {
					return err
				}
				return a.Destroy() // documented: 0 after Destroy, and a no-op
			}},
			{api: "Array.Destroy", what: "nil array", want: badHandle, run: func(e *misuseEnv) error { return (*texobj.Array)(nil).Destroy() }},
			{api: "CopyToArray", what: "the wrong number of bytes", want: badValue, needs: needsTex, run: func(e *misuseEnv) error {
				a, err := newArray(e)
				if err != nil {
					return err
				}
				defer a.Destroy()
				return texobj.CopyToArray(a, four)
			}},
			{api: "Array.CopyFromDevice", what: "device memory that is not allocated", want: badValue, needs: needsTex, run: func(e *misuseEnv) error {
				a, err := newArray(e)
				if err != nil {
					return err
				}
				defer a.Destroy()
				return a.CopyFromDevice(dev)
			}},
			noPanic("Array.Context", "nil array", func(e *misuseEnv) { (*texobj.Array)(nil).Context() }),
			noPanic("Array.Desc", "nil array", func(e *misuseEnv) { (*texobj.Array)(nil).Desc() }),
			noPanic("Array.Handle", "nil array", func(e *misuseEnv) { (*texobj.Array)(nil).Handle() }),
			noPanic("ArrayResource", "nil array", func(e *misuseEnv) { texobj.ArrayResource(nil) }),
			{api: "NewTexture", what: "an array resource of a nil array", want: badValue, needs: needsTex, run: func(e *misuseEnv) error {
				_, err := texobj.NewTexture(e.ctx, texobj.ArrayResource(nil), rt.TextureDesc{})
				return err
			}},
			noPanic("LinearResource", "no memory", func(e *misuseEnv) { texobj.LinearResource(0, rt.FormatFloat, 0, -1) }),
			noPanic("PitchedResource", "zero Pitched", func(e *misuseEnv) { texobj.PitchedResource(rt.Pitched[float32]{}, rt.FormatFloat, 0) }),
			noPanic("DeviceSide", "no memory", func(e *misuseEnv) { rt.DeviceSide(0, 0, 0) }),
			{api: "Copy3D.Run", what: "no sides", want: badValue, needs: needsTex, run: func(e *misuseEnv) error {
				return rt.Copy3D{WidthBytes: 4, Height: 1, Depth: 1}.Run(e.ctx)
			}},
		},
	)
}

func peerCases() []misuseCase {
	pair := func(api string, call func(e *misuseEnv, a, b *rt.Context) error) []misuseCase {
		return cat(
			ctxArg(api, func(e *misuseEnv, c *rt.Context) error { return call(e, c, e.ctx2) }),
			ctxArg(api, func(e *misuseEnv, c *rt.Context) error { return call(e, e.ctx, c) }),
			[]misuseCase{{api: api, what: "context of another driver", want: badHandle, run: func(e *misuseEnv) error { return call(e, e.ctx, e.fake) }}},
		)
	}
	return cat(
		pair("Context.EnablePeerAccess", func(e *misuseEnv, a, b *rt.Context) error { return a.EnablePeerAccess(b) }),
		pair("Context.DisablePeerAccess", func(e *misuseEnv, a, b *rt.Context) error { return a.DisablePeerAccess(b) }),
		bufRecv("Buffer.CopyFromPeer", badValue, func(e *misuseEnv, b rt.Buffer[float32]) error { return e.buf.CopyFromPeer(b) }),
		bufRecv("Buffer.CopyFromPeer", badValue, func(e *misuseEnv, b rt.Buffer[float32]) error {
			return b.CopyFromPeer(rt.Buffer[float32]{Ptr: e.buf.Ptr, Len: 4})
		}),
		bufRecv("Buffer.CopyFromPeerAsync", badValue, func(e *misuseEnv, b rt.Buffer[float32]) error { return e.buf.CopyFromPeerAsync(e.s, b) }),
		[]misuseCase{
			{api: "Buffer.CopyFromPeerAsync", what: "nil stream", want: okay, needs: needsPeer, run: func(e *misuseEnv) error {
				src := bufIn(e.ctx2)
				defer src.Free()
				err := e.buf.CopyFromPeerAsync(nil, src)
				if err == nil {
					err = e.ctx.Synchronize()
				}
				return err
			}},
			{api: "Buffer.CopyFromPeerAsync", what: "destroyed stream", want: badHandle, run: func(e *misuseEnv) error {
				src := bufIn(e.ctx2)
				defer src.Free()
				return e.buf.CopyFromPeerAsync(e.deadStream(), src)
			}},
			{api: "Buffer.CopyFromPeerAsync", what: "stream of another driver", want: badHandle, run: func(e *misuseEnv) error {
				src := bufIn(e.ctx2)
				defer src.Free()
				return e.buf.CopyFromPeerAsync(e.fakeStream(), src)
			}},
			{api: "Buffer.CopyFromPeer", what: "source of another driver", want: badHandle, run: func(e *misuseEnv) error {
				src, err := rt.Alloc[float32](e.fake, 4)
				if err != nil {
					return err
				}
				return e.buf.CopyFromPeer(src)
			}},
		},
	)
}

// hostFuncCases are CUDA calls made from a host function: CUDA forbids
// them (CUDA_ERROR_NOT_PERMITTED); one that waits for its own stream would
// wait for itself.
func hostFuncCases() []misuseCase {
	inHost := func(what string, call func(e *misuseEnv, s *rt.Stream) error) misuseCase {
		return misuseCase{api: "Stream.LaunchHostFunc", what: what, want: notPermitted, needs: needsStreamer, run: func(e *misuseEnv) error {
			s, err := e.ctx.NewStream()
			if err != nil {
				return err
			}
			defer s.Destroy()
			var inner error
			if err := s.LaunchHostFunc(func() { inner = call(e, s) }); err != nil {
				return err
			}
			if err := s.Synchronize(); err != nil {
				return err
			}
			if inner == nil {
				return nil
			}
			return inner
		}}
	}
	return []misuseCase{
		inHost("synchronizing its own stream", func(e *misuseEnv, s *rt.Stream) error { return s.Synchronize() }),
		inHost("synchronizing its context", func(e *misuseEnv, s *rt.Stream) error { return e.ctx.Synchronize() }),
		inHost("a synchronous copy", func(e *misuseEnv, s *rt.Stream) error { return e.buf.CopyFrom(four) }),
		inHost("an allocation", func(e *misuseEnv, s *rt.Stream) error {
			b, err := rt.Alloc[float32](e.ctx, 4)
			if err == nil {
				b.Free()
			}
			return err
		}),
		inHost("a launch", func(e *misuseEnv, s *rt.Stream) error {
			return e.empty.Launch(rt.Config{Stream: e.s}, nil)
		}),
		inHost("queueing another host function", func(e *misuseEnv, s *rt.Stream) error { return s.LaunchHostFunc(func() {}) }),
		inHost("creating an event", func(e *misuseEnv, s *rt.Stream) error {
			ev, err := e.ctx.NewEvent(0)
			if err == nil {
				ev.Destroy()
			}
			return err
		}),
		{api: "Stream.LaunchHostFunc", what: "a host function's CUDA call from another goroutine", want: okay, needs: needsStreamer, run: func(e *misuseEnv) error {
			// The intended use: signal a goroutine that makes the call.
			s, err := e.ctx.NewStream()
			if err != nil {
				return err
			}
			defer s.Destroy()
			ran := make(chan struct{})
			if err := s.LaunchHostFunc(func() { close(ran) }); err != nil {
				return err
			}
			<-ran
			return e.buf.CopyFrom(four)
		}},
	}
}

// captureCases destroy what a capture is using: the capture must end
// with it, leaving the context usable (health checks that).
func captureCases() []misuseCase {
	// CUDA's code for destroying a capturing stream is not documented:
	// rt/soft returns success, as cuStreamDestroy of a stream with work does.
	destroyWant := codes(rt.Success, rt.ErrStreamCaptureUnsupported, rt.ErrStreamCaptureInvalidated, rt.ErrIllegalState)
	return []misuseCase{
		{api: "Stream.Destroy", what: "while it captures (global mode)", want: destroyWant, needs: needsGraphs, run: func(e *misuseEnv) error {
			s, err := e.ctx.NewStream()
			if err != nil {
				return err
			}
			if err := s.BeginCapture(rt.CaptureGlobal); err != nil {
				return err
			}
			if err := e.buf.ZeroAsync(s); err != nil {
				return err
			}
			err = s.Destroy()
			e.t.Logf("MISUSE-CAPTURE %s: Stream.Destroy while capturing: %v", e.d.Name(), errOrNil(err))
			return err
		}},
		{api: "Stream.Destroy", what: "a stream that joined a capture", want: destroyWant, needs: both(needsGraphs, needsStreamer), run: func(e *misuseEnv) error {
			s, err := e.ctx.NewStream()
			if err != nil {
				return err
			}
			defer s.Destroy()
			t, err := e.ctx.NewStream()
			if err != nil {
				return err
			}
			if err := s.BeginCapture(rt.CaptureRelaxed); err != nil {
				return err
			}
			fork := e.event(e.ctx)
			if err := fork.Record(s); err != nil {
				return err
			}
			if err := t.WaitEvent(fork); err != nil {
				return err
			}
			derr := t.Destroy()
			_, err = s.EndCapture()
			e.t.Logf("MISUSE-CAPTURE %s: destroying a forked stream: %v; EndCapture: %v", e.d.Name(), errOrNil(derr), errOrNil(err))
			return derr
		}},
		{api: "Context.Release", what: "while a stream of it captures", want: okay, needs: needsGraphs, run: func(e *misuseEnv) error {
			c, err := e.devs[0].NewContext(0)
			if err != nil {
				return err
			}
			s, err := c.NewStream()
			if err != nil {
				return err
			}
			if err := s.BeginCapture(rt.CaptureGlobal); err != nil {
				return err
			}
			return c.Release()
		}},
	}
}

// clusterCases launch clusters above the portable 8 blocks.
func clusterCases() []misuseCase {
	sm90 := func(e *misuseEnv) string {
		if w := needsAttrs(e); w != "" {
			return w
		}
		if m, err := e.devs[0].Attribute(rt.AttrComputeCapabilityMajor); err != nil || m < 9 {
			return "thread-block clusters need sm_90"
		}
		return ""
	}
	run := func(n int, allow bool) func(e *misuseEnv) error {
		return func(e *misuseEnv) error {
			lib := rt.NewLibrary("suite_sm90.ptx", suiteSM90PTX)
			defer lib.Unload(e.d)
			k := lib.Kernel("clusterInfo", rt.ParamSpec{Offset: 0, Size: 8})
			if allow {
				if err := k.AllowNonPortableClusterSize(e.devs[0], true); err != nil {
					return err
				}
			}
			out, err := rt.Alloc[uint32](e.ctx, 3*n)
			if err != nil {
				return err
			}
			defer out.Free()
			var p [8]byte
			le.PutUint64(p[:], uint64(out.Ptr))
			if err := k.Launch(rt.Config{Grid: rt.D1(n), Block: rt.D1(32), Cluster: rt.D1(n), Stream: e.s}, p[:]); err != nil {
				return err
			}
			return e.s.Synchronize()
		}
	}
	return []misuseCase{
		{api: "Kernel.Launch", what: "cluster of 8", want: okay, needs: sm90, run: run(8, false)},
		{api: "Kernel.Launch", what: "cluster of 16 without the non-portable opt-in", want: codes(rt.ErrInvalidClusterSize), needs: sm90, run: run(16, false)},
		{api: "Kernel.AllowNonPortableClusterSize", what: "cluster of 16 with it", want: okay, needs: sm90, run: run(16, true)},
		{api: "Kernel.AllowNonPortableClusterSize", what: "cluster of 32 with it", want: codes(rt.ErrInvalidClusterSize), needs: sm90, run: run(32, true)},
	}
}

func driverCases() []misuseCase {
	return cat(
		driverArg("DevicesOf", func(e *misuseEnv, d rt.Driver) error { _, err := rt.DevicesOf(d); return err }),
		driverArg("EncodeTiled", func(e *misuseEnv, d rt.Driver) error { _, err := rt.EncodeTiled(d, rt.TiledTensor{}); return err }),
		driverArg("EncodeIm2col", func(e *misuseEnv, d rt.Driver) error { _, err := rt.EncodeIm2col(d, rt.Im2colTensor{}); return err }),
		[]misuseCase{
			{api: "Open", what: "a backend that is not registered", want: anyErrorOf(), run: func(e *misuseEnv) error {
				_, err := rt.Open("no-such-backend")
				if err != nil {
					return rt.Errorf("rt.Open", rt.ErrUnknown, "%v", err)
				}
				return nil
			}},
			{api: "EncodeTiled", what: "the zero description", want: badValue, run: func(e *misuseEnv) error {
				_, err := rt.EncodeTiled(e.d, rt.TiledTensor{})
				if rt.CodeOf(err) == rt.ErrNotSupported {
					return rt.Errorf("test", rt.ErrInvalidValue, "a backend without tensor maps: %v", err)
				}
				return err
			}},
			{api: "EncodeIm2col", what: "the zero description", want: badValue, run: func(e *misuseEnv) error {
				_, err := rt.EncodeIm2col(e.d, rt.Im2colTensor{})
				if rt.CodeOf(err) == rt.ErrNotSupported {
					return rt.Errorf("test", rt.ErrInvalidValue, "a backend without tensor maps: %v", err)
				}
				return err
			}},
			noPanic("Devices", "whatever the default is", func(e *misuseEnv) { rt.Devices() }),
			noPanic("Default", "whatever the default is", func(e *misuseEnv) { rt.Default() }),
			noPanic("Backends", "listing", func(e *misuseEnv) { rt.Backends() }),
		},
	)
}

// adoptCases give the adoption of other code's objects wrong handles.
func adoptCases() []misuseCase {
	nilEv := (*rt.Event)(nil)
	return cat(
		ctxArg("Context.AdoptStream", func(e *misuseEnv, c *rt.Context) error { _, err := c.AdoptStream(1); return err }),
		ctxArg("Context.AdoptEvent", func(e *misuseEnv, c *rt.Context) error { _, err := c.AdoptEvent(1); return err }),
		ctxArg("AdoptBuffer", func(e *misuseEnv, c *rt.Context) error {
			_, err := rt.AdoptBuffer[float32](c, e.buf.Ptr.Addr(), 4)
			return err
		}),
		ctxArg("AdoptPinned", func(e *misuseEnv, c *rt.Context) error {
			_, err := rt.AdoptPinned[float32](c, unsafe.Pointer(&four[0]), 4)
			return err
		}),
		ctxArg("Kernel.Function", func(e *misuseEnv, c *rt.Context) error { _, err := e.vecAdd.Function(c); return err }),
		driverArg("AdoptContext", func(e *misuseEnv, d rt.Driver) error { _, err := rt.AdoptContext(d, e.ctx.Handle()); return err }),
		driverArg("AdoptStream", func(e *misuseEnv, d rt.Driver) error { _, err := rt.AdoptStream(d, e.s.Handle()); return err }),
		driverArg("Library.Native", func(e *misuseEnv, d rt.Driver) error { _, err := e.lib.Native(d); return err }),
		driverArg("Kernel.Native", func(e *misuseEnv, d rt.Driver) error { _, err := e.vecAdd.Native(d); return err }),
		[]misuseCase{
			{api: "AdoptContext", what: "the null handle", want: badContext, run: func(e *misuseEnv) error { _, err := rt.AdoptContext(e.d, 0); return err }},
			{api: "AdoptContext", what: "a released context's handle", want: badContext, run: func(e *misuseEnv) error {
				_, err := rt.AdoptContext(e.d, e.released().Handle())
				return err
			}},
			{api: "Context.AdoptStream", what: "Destroy of CUDA's legacy stream", want: notPermitted, run: func(e *misuseEnv) error {
				st, err := e.ctx.AdoptStream(rt.StreamLegacy)
				if err != nil {
					return err
				}
				return st.Destroy()
			}},
			{api: "Context.AdoptEvent", what: "the null handle", want: badHandle, run: func(e *misuseEnv) error { _, err := e.ctx.AdoptEvent(0); return err }},
			{api: "AdoptBuffer", what: "2^61 float64: bytes overflow", want: badValue, run: func(e *misuseEnv) error {
				_, err := rt.AdoptBuffer[float64](e.ctx, e.buf.Ptr.Addr(), 1<<61)
				return err
			}},
			{api: "AdoptBuffer", what: "the null pointer", want: badValue, run: func(e *misuseEnv) error { _, err := rt.AdoptBuffer[float32](e.ctx, 0, 4); return err }},
			{api: "AdoptPinned", what: "2^61 float64: bytes overflow", want: badValue, run: func(e *misuseEnv) error {
				_, err := rt.AdoptPinned[float64](e.ctx, unsafe.Pointer(&four[0]), 1<<61)
				return err
			}},
			{api: "Buffer.Slice", what: "past the end", want: badValue, run: func(e *misuseEnv) error { _, err := e.buf.Slice(2, e.buf.Len+1); return err }},
			{api: "Buffer.Slice", what: "a slice's Free", want: codes(rt.ErrNotPermitted), run: func(e *misuseEnv) error {
				v, err := e.buf.Slice(0, 4)
				if err != nil {
					return err
				}
				return v.Free()
			}},
			noPanic("Buffer.IsView", "zero Buffer", func(e *misuseEnv) { rt.Buffer[float32]{}.IsView() }),
			noPanic("Event.Handle", "nil event", func(e *misuseEnv) { nilEv.Handle() }),
			noPanic("Event.Context", "nil event", func(e *misuseEnv) { nilEv.Context() }),
			noPanic("Stream.Adopted", "nil stream", func(e *misuseEnv) { (*rt.Stream)(nil).Adopted() }),
			noPanic("PinnedBuffer.Pointer", "nil PinnedBuffer", func(e *misuseEnv) { (*rt.PinnedBuffer[float32])(nil).Pointer() }),
			{api: "Library.Native", what: "nil library", want: badHandle, run: func(e *misuseEnv) error { _, err := (*rt.Library)(nil).Native(e.d); return err }},
			{api: "Kernel.Native", what: "nil kernel", want: codes(rt.ErrInvalidHandle, rt.ErrNotSupported), run: func(e *misuseEnv) error {
				_, err := (*rt.Kernel)(nil).Native(e.d)
				return err
			}},
		},
	)
}

// deprecatedCases are the deprecated forms of Devices' and Device's calls.
func deprecatedCases() []misuseCase {
	return []misuseCase{
		{api: "PrimaryOn", what: "nil driver", want: badDevice, run: func(e *misuseEnv) error { _, err := rt.PrimaryOn(nil, 0); return err }},
		{api: "PrimaryOn", what: "a device the driver lacks", want: badDevice, run: func(e *misuseEnv) error { _, err := rt.PrimaryOn(e.d, 99); return err }},
		{api: "NewContextOn", what: "nil driver", want: badDevice, run: func(e *misuseEnv) error { _, err := rt.NewContextOn(nil, 0, 0); return err }},
		{api: "NewContextOn", what: "a device the driver lacks", want: badDevice, run: func(e *misuseEnv) error { _, err := rt.NewContextOn(e.d, 99, 0); return err }},
		{api: "Primary", what: "a device the default driver lacks", want: codes(rt.ErrInvalidDevice, rt.ErrNoDevice), run: func(e *misuseEnv) error {
			_, err := rt.Primary(99)
			return err
		}},
		{api: "NewContext", what: "a device the default driver lacks", want: codes(rt.ErrInvalidDevice, rt.ErrNoDevice), run: func(e *misuseEnv) error {
			_, err := rt.NewContext(99)
			return err
		}},
		{api: "Context.DeviceName", what: "nil context", want: badDevice, run: func(e *misuseEnv) error { _, err := (*rt.Context)(nil).DeviceName(); return err }},
		{api: "Context.Attribute", what: "zero Context", want: badDevice, run: func(e *misuseEnv) error {
			_, err := (&rt.Context{}).Attribute(rt.AttrWarpSize)
			return err
		}},
		{api: "Kernel.Placement", what: "nil driver", want: badValue, run: func(e *misuseEnv) error { _, _, err := e.vecAdd.Placement(nil); return err }},
		noPanic("DeviceCount", "whatever the default is", func(e *misuseEnv) { rt.DeviceCount() }),
	}
}
