package rt_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft"
)

// The tests here read back, through rt on rt/soft, state that only a
// driver keeps: a pool's attributes, a capture's mode and status, the
// nodes stream-ordered allocation captures, peer and device attributes,
// what the driver knows of an address and its rules for conditional
// nodes.

func softPrimary(t *testing.T, opt soft.Options) (*soft.Driver, *rt.Context) {
	t.Helper()
	d := soft.New(opt)
	return d, primary(t, d)
}

// TestMemPoolAttributes: a new pool's reuse policies are CUDA's defaults
// (all on), each can be switched off and only to 0 or 1, and the
// reserved-memory high-water mark covers an allocation and resets only to
// 0.
func TestMemPoolAttributes(t *testing.T) {
	_, ctx := softPrimary(t, soft.Options{})
	pool, err := ctx.Device().NewMemPool(0)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Destroy()
	var h rt.MemPoolHandle = pool.Handle()
	if h == 0 {
		t.Error("a live pool has handle 0")
	}
	for _, a := range []rt.MemPoolAttr{rt.PoolReuseFollowEventDependencies, rt.PoolReuseAllowOpportunistic, rt.PoolReuseAllowInternalDependencies} {
		if v, err := pool.Attribute(a); v != 1 || err != nil {
			t.Errorf("attribute %d of a new pool: %d, %v, want 1", a, v, err)
		}
		if err := pool.SetAttribute(a, 0); err != nil {
			t.Errorf("attribute %d set to 0: %v", a, err)
		}
		if v, err := pool.Attribute(a); v != 0 || err != nil {
			t.Errorf("attribute %d after setting 0: %d, %v", a, v, err)
		}
		if err := pool.SetAttribute(a, 2); !errors.Is(err, rt.ErrInvalidValue) {
			t.Errorf("attribute %d set to 2: %v, want ErrInvalidValue", a, err)
		}
	}
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	buf, err := rt.AllocFromPool[byte](s, pool, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := buf.FreeAsync(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if high, err := pool.Attribute(rt.PoolReservedMemHigh); high < 1<<20 || err != nil {
		t.Errorf("reserved high-water mark after a 1 MiB allocation: %d, %v", high, err)
	}
	if err := pool.SetAttribute(rt.PoolReservedMemHigh, 5); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("high-water mark set to 5: %v, want ErrInvalidValue", err)
	}
	if err := pool.Trim(0); err != nil {
		t.Fatal(err)
	}
	if err := pool.SetAttribute(rt.PoolReservedMemHigh, 0); err != nil {
		t.Fatal(err)
	}
	cur, _ := pool.Attribute(rt.PoolReservedMemCurrent)
	if high, err := pool.Attribute(rt.PoolReservedMemHigh); high != cur || err != nil {
		t.Errorf("high-water mark after a reset: %d, %v, want the current %d", high, err, cur)
	}
}

// TestCaptureModes: a synchronous allocation during a capture fails under
// CaptureGlobal and CaptureThreadLocal (on the capturing thread) and
// passes under CaptureRelaxed; synchronizing the capturing stream
// invalidates the capture, which CaptureStatus and EndCapture report.
func TestCaptureModes(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, ctx := softPrimary(t, soft.Options{})
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	for _, mode := range []rt.CaptureMode{rt.CaptureGlobal, rt.CaptureThreadLocal, rt.CaptureRelaxed} {
		if err := s.BeginCapture(mode); err != nil {
			t.Fatal(err)
		}
		var st rt.CaptureStatus
		if st, err = s.CaptureStatus(); st != rt.CaptureActive || err != nil {
			t.Errorf("mode %d: status %d, %v, want active", mode, st, err)
		}
		buf, err := rt.Alloc[byte](ctx, 256)
		if mode == rt.CaptureRelaxed {
			if err != nil {
				t.Errorf("an allocation during a relaxed capture: %v", err)
			}
			buf.Free()
		} else if !errors.Is(err, rt.ErrStreamCaptureUnsupported) {
			t.Errorf("mode %d: an allocation during the capture: %v, want ErrStreamCaptureUnsupported", mode, err)
		}
		if _, err := s.EndCapture(); err != nil {
			t.Errorf("mode %d: %v", mode, err)
		}
	}
	if err := s.BeginCapture(rt.CaptureRelaxed); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); !errors.Is(err, rt.ErrStreamCaptureUnsupported) {
		t.Errorf("synchronizing a capturing stream: %v", err)
	}
	if st, err := s.CaptureStatus(); st != rt.CaptureInvalidated || err != nil {
		t.Errorf("after the synchronize: status %d, %v, want invalidated", st, err)
	}
	if _, err := s.EndCapture(); !errors.Is(err, rt.ErrStreamCaptureInvalidated) {
		t.Errorf("ending an invalidated capture: %v", err)
	}
}

// TestCapturedAllocNodes: AllocAsync and FreeAsync on a capturing stream
// become a mem alloc and a mem free node of the graph.
func TestCapturedAllocNodes(t *testing.T) {
	_, ctx := softPrimary(t, soft.Options{})
	s, err := ctx.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	g, err := s.Capture(func(s *rt.Stream) error {
		buf, err := rt.AllocAsync[float32](s, 256)
		if err != nil {
			return err
		}
		return buf.FreeAsync(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	var h rt.GraphHandle = g.Handle()
	if h == 0 {
		t.Error("a captured graph has handle 0")
	}
	for _, typ := range []rt.NodeType{rt.NodeMemAlloc, rt.NodeMemFree} {
		if n, err := g.NodesOfType(typ); len(n) != 1 || err != nil {
			t.Errorf("%v nodes: %d, %v, want 1", typ, len(n), err)
		}
	}
}

// TestDeviceAndPeerAttributes: soft's devices are sm_90 (compute
// capability minor 0), and peers can read each other's arrays.
func TestDeviceAndPeerAttributes(t *testing.T) {
	d := soft.New(soft.Options{Devices: 2})
	devs, err := rt.DevicesOf(d)
	if err != nil {
		t.Fatal(err)
	}
	if minor, err := devs[0].Attribute(rt.AttrComputeCapabilityMinor); minor != 0 || err != nil {
		t.Errorf("compute capability minor: %d, %v, want 0 (sm_90)", minor, err)
	}
	var a rt.P2PAttr = rt.P2PCudaArrayAccess
	if v, err := devs[0].P2PAttribute(devs[1], a); v != 1 || err != nil {
		t.Errorf("array access from device 0 to 1: %d, %v, want 1", v, err)
	}
	if _, err := devs[0].P2PAttribute(devs[1], rt.P2PAttr(99)); !errors.Is(err, rt.ErrInvalidValue) {
		t.Errorf("P2P attribute 99: %v, want ErrInvalidValue", err)
	}
}

// TestPointerInfo: the driver places an address in a device allocation
// (its base, size and device) and knows nothing of another.
func TestPointerInfo(t *testing.T) {
	d, ctx := softPrimary(t, soft.Options{})
	buf, err := rt.Alloc[float32](ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	addr := uint64(buf.Ptr.Addr())
	var info rt.PointerInfo
	if info, err = d.PointerInfo(addr + 40); err != nil {
		t.Fatal(err)
	}
	var kind rt.MemoryKind = info.Kind
	if kind != rt.MemoryDevice || info.Base != addr || info.Size < 4000 || info.Device != 0 || info.Ctx != ctx.Handle() {
		t.Errorf("inside a device allocation: %+v", info)
	}
	if info, err = d.PointerInfo(0x10); err != nil || info.Kind != rt.MemoryUnregistered {
		t.Errorf("address 0x10: %+v, %v, want unregistered", info, err)
	}
	m := rt.NewManaged[uint32](rt.NewLibrary("managed", []byte(managedPTX)), "m", 4)
	p, err := m.Ptr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info, err = d.PointerInfo(uint64(p.Addr())); err != nil || info.Kind != rt.MemoryManaged || info.Device != -1 || info.Size != 16 {
		t.Errorf("a __managed__ variable: %+v, %v, want 16 bytes of managed memory on no one device", info, err)
	}
}

const managedPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .global .attribute(.managed) .align 4 .b8 m[16];
`

// TestConditionalRules: the driver-level conditional node takes one or two
// bodies for an if, one for a while and at least one for a switch, and a
// condition made with CondAssignDefault.
func TestConditionalRules(t *testing.T) {
	d, ctx := softPrimary(t, soft.Options{})
	g, err := ctx.NewGraph()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Destroy()
	var c rt.ConditionalHandle
	if c, err = d.GraphConditionalCreate(ctx.Handle(), g.Handle(), 1, rt.CondAssignDefault); err != nil || c == 0 {
		t.Fatalf("condition: %#x, %v", c, err)
	}
	for _, k := range []struct {
		typ  rt.CondType
		size int
		ok   bool
	}{
		{rt.CondIf, 1, true}, {rt.CondIf, 2, true}, {rt.CondIf, 3, false},
		{rt.CondWhile, 1, true}, {rt.CondWhile, 2, false},
		{rt.CondSwitch, 3, true}, {rt.CondSwitch, 0, false},
	} {
		_, bodies, err := d.GraphAddConditional(ctx.Handle(), g.Handle(), nil, c, k.typ, k.size)
		if (err == nil) != k.ok || k.ok && len(bodies) != k.size {
			t.Errorf("type %d with %d bodies: %d bodies, %v; want ok %v", k.typ, k.size, len(bodies), err, k.ok)
		}
	}
	if n, err := g.NodesOfType(rt.NodeConditional); len(n) != 4 || err != nil {
		t.Errorf("conditional nodes: %d, %v, want the 4 accepted", len(n), err)
	}
}

// attrPTX is a kernel with 64 bytes of constant memory.
const attrPTX = `.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 table[64];
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.const.u32 %r1, [table];
	st.global.u32 [%rd1], %r1;
	ret;
}
`

// TestKernelAttributes: a kernel's constant memory is its module's, its
// carveout preference is -1 (none) until set, the cluster attributes keep
// what is set within CUDA's limits and refuse what is beyond them, and the
// attributes CUDA only reports (cache mode, cluster size must be set) read
// 0 on soft.
func TestKernelAttributes(t *testing.T) {
	_, ctx := softPrimary(t, soft.Options{})
	k := rt.NewLibrary("attr", []byte(attrPTX)).Kernel("k", rt.ParamSpec{Offset: 0, Size: 8})
	dev := ctx.Device()
	ka, err := k.Attributes(dev)
	if err != nil {
		t.Fatal(err)
	}
	if ka.ConstSizeBytes != 64 || ka.PreferredSharedMemoryCarveout != -1 {
		t.Errorf("const %d bytes, carveout %d; want 64 and -1", ka.ConstSizeBytes, ka.PreferredSharedMemoryCarveout)
	}
	if local, err := k.Attribute(dev, rt.FuncLocalSizeBytes); local != ka.LocalSizeBytes || err != nil {
		t.Errorf("local size %d, %v; Attributes says %d", local, err, ka.LocalSizeBytes)
	}
	if n, err := k.Attribute(dev, rt.FuncConstSizeBytes); n != 64 || err != nil {
		t.Errorf("FuncConstSizeBytes: %d, %v", n, err)
	}
	for _, a := range []rt.FuncAttr{rt.FuncCacheModeCA, rt.FuncClusterSizeMustBeSet} {
		if v, err := k.Attribute(dev, a); v != 0 || err != nil {
			t.Errorf("attribute %d: %d, %v, want 0", a, v, err)
		}
	}
	for _, c := range []struct {
		a       rt.FuncAttr
		ok, bad int
	}{
		{rt.FuncRequiredClusterHeight, 2, 17}, {rt.FuncRequiredClusterDepth, 4, -1},
		{rt.FuncNonPortableClusterSizeAllowed, 1, 2}, {rt.FuncClusterSchedulingPolicyPreference, 2, 3},
		{rt.FuncPreferredSharedMemoryCarveout, 50, 101},
	} {
		if err := k.SetAttribute(dev, c.a, c.ok); err != nil {
			t.Errorf("attribute %d set to %d: %v", c.a, c.ok, err)
		}
		if v, err := k.Attribute(dev, c.a); v != c.ok || err != nil {
			t.Errorf("attribute %d: %d, %v, want %d", c.a, v, err, c.ok)
		}
		if err := k.SetAttribute(dev, c.a, c.bad); !errors.Is(err, rt.ErrInvalidValue) {
			t.Errorf("attribute %d set to %d: %v, want ErrInvalidValue", c.a, c.bad, err)
		}
	}
}
