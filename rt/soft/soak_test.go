package soft

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// The soak test: a long-running process's churn of drivers, libraries,
// contexts, streams, events, graphs, allocations, textures and launches
// keeps its live heap flat (issue 29). CUGEN_SOAK=<duration> (e.g. 10m) runs
// it for that long and logs the live heap every tenth of the run; the
// default is a few seconds (less under -short or -race).

const soakPTX = ptxHeader + `
.global .align 4 .f32 scale = 2.0;
.visible .entry axpy(.param .u64 x, .param .u64 y, .param .u32 n, .param .u64 tex)
{
	.reg .b64 %a<6>;
	.reg .b32 %r<6>;
	.reg .f32 %f<6>;
	.reg .pred %p;
	ld.param.u64 %a1, [x];
	ld.param.u64 %a2, [y];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r2, %r3, %r4, %r2;
	setp.ge.u32 %p, %r2, %r1;
	@%p bra DONE;
	mul.wide.u32 %a3, %r2, 4;
	add.s64 %a4, %a1, %a3;
	add.s64 %a5, %a2, %a3;
	ld.global.f32 %f1, [%a4];
	ld.global.f32 %f2, [%a5];
	ld.global.f32 %f3, [scale];
	fma.rn.f32 %f4, %f1, %f3, %f2;
	st.global.f32 [%a5], %f4;
DONE:
	ret;
}
`

// soakLib is declared once, as a generated package declares its library:
// it is loaded in every Driver the churn makes.
var soakLib = rt.NewLibrary("soak.ptx", []byte(soakPTX))
var soakAxpy = soakLib.Kernel("axpy", rt.ParamSpec{Offset: 0, Size: 8, Align: 8}, rt.ParamSpec{Offset: 8, Size: 8, Align: 8},
	rt.ParamSpec{Offset: 16, Size: 4, Align: 4}, rt.ParamSpec{Offset: 24, Size: 8, Align: 8})

func soakDuration(t *testing.T) (time.Duration, bool) {
	if v := os.Getenv("CUGEN_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CUGEN_SOAK=%q: %v", v, err)
		}
		return d, true
	}
	switch {
	case raceEnabled:
		return 3 * time.Second, false
	case testing.Short():
		return 2 * time.Second, false
	}
	return 8 * time.Second, false
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestSoakHeapStaysFlat(t *testing.T) {
	dur, long := soakDuration(t)
	start := time.Now()
	warm := dur / 5
	var base, peak uint64
	var rounds int
	next := warm
	step := dur / 10
	var d *Driver
	for i := 0; time.Since(start) < dur; i++ {
		if i%8 == 0 {
			// A new Driver, as after a sticky fault; the old one is dropped
			// without any cleanup, as a careless program would.
			d = New(Options{Devices: 2, Workers: 2, Stdout: discard{}})
		}
		if err := soakRound(d, i); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if i%4 == 3 {
			if err := carelessRound(d); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		rounds++
		if el := time.Since(start); el >= next {
			h := liveHeap()
			if base == 0 {
				base = h
			}
			peak = max(peak, h)
			if long || testing.Verbose() {
				t.Logf("%8v  %6d rounds  live heap %7.2f MB", el.Round(time.Second), rounds, float64(h)/1e6)
			}
			next += step
		}
	}
	d = nil
	end := liveHeap()
	peak = max(peak, end)
	t.Logf("%d rounds in %v: live heap %.2f MB after warm-up, peak %.2f MB, %.2f MB at the end",
		rounds, time.Since(start).Round(time.Second), float64(base)/1e6, float64(peak)/1e6, float64(end)/1e6)
	// Flat: within a small factor of the warmed-up level (plus a little
	// for what the runtime keeps), not growing with the rounds.
	if limit := base*3/2 + 4<<20; peak > limit {
		t.Errorf("live heap grew from %.2f MB after warm-up to %.2f MB (limit %.2f MB)", float64(base)/1e6, float64(peak)/1e6, float64(limit)/1e6)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// soakRound does one round of everything a service does on a Driver, and
// releases what it made.
func soakRound(d *Driver, i int) error {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return err
	}
	dev := devs[i%len(devs)]
	var ctx *rt.Context
	if i%2 == 0 {
		ctx, err = dev.Primary()
	} else {
		ctx, err = dev.NewContext(0)
	}
	if err != nil {
		return err
	}
	defer ctx.Release()
	const n = 4096
	x := make([]float32, n)
	for j := range x {
		x[j] = float32(j)
	}
	bx, err := rt.AllocFrom(ctx, x)
	if err != nil {
		return err
	}
	defer bx.Free()
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	defer s.Destroy()
	by, err := rt.AllocAsync[float32](s, n)
	if err != nil {
		return err
	}
	if err := by.ZeroAsync(s); err != nil {
		return err
	}
	tex, err := texobj.NewTexture(ctx, texobj.LinearResource(bx.Ptr.Addr(), rt.FormatFloat, 1, n), rt.TextureDesc{})
	if err != nil {
		return err
	}
	defer tex.Destroy()
	var p [32]byte
	binary.LittleEndian.PutUint64(p[0:], uint64(bx.Ptr))
	binary.LittleEndian.PutUint64(p[8:], uint64(by.Ptr))
	binary.LittleEndian.PutUint32(p[16:], n)
	binary.LittleEndian.PutUint64(p[24:], uint64(tex.Object))
	cfg := rt.Linear(n, 256)
	cfg.Stream = s
	for range 3 {
		if err := soakAxpy.Launch(cfg, p[:]); err != nil {
			return err
		}
	}
	// A graph of the same launch, replayed.
	g, err := s.Capture(func(s *rt.Stream) error {
		c := cfg
		c.Stream = s
		return soakAxpy.Launch(c, p[:])
	})
	if err != nil {
		return err
	}
	x2, err := g.Instantiate()
	if err != nil {
		return err
	}
	if err := x2.Launch(s); err != nil {
		return err
	}
	ev, err := ctx.NewEvent(0)
	if err != nil {
		return err
	}
	if err := ev.Record(s); err != nil {
		return err
	}
	if err := ev.Synchronize(); err != nil {
		return err
	}
	got := make([]float32, n)
	if err := by.CopyToAsync(s, got); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	if got[3] != 4*2*3 {
		return fmt.Errorf("y[3] = %v after 4 launches, want 24", got[3])
	}
	if err := by.FreeAsync(s); err != nil {
		return err
	}
	for _, f := range []func() error{ev.Destroy, x2.Destroy, g.Destroy} {
		if err := f(); err != nil {
			return err
		}
	}
	// A library of its own, loaded and unloaded.
	lib := rt.NewLibrary(fmt.Sprintf("churn%d.ptx", i), []byte(soakPTX))
	k := lib.Kernel("axpy", rt.ParamSpec{Offset: 0, Size: 8, Align: 8}, rt.ParamSpec{Offset: 8, Size: 8, Align: 8},
		rt.ParamSpec{Offset: 16, Size: 4, Align: 4}, rt.ParamSpec{Offset: 24, Size: 8, Align: 8})
	binary.LittleEndian.PutUint64(p[8:], uint64(bx.Ptr))
	cfg.Stream = s
	if err := k.Launch(cfg, p[:]); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	return lib.Unload(d)
}

// carelessRound makes a context and destroys it with everything still in
// it: a stream-ordered allocation, a texture, a stream with a launch not
// synchronized with. The context's destruction releases them.
func carelessRound(d *Driver) error {
	devs, err := rt.DevicesOf(d)
	if err != nil {
		return err
	}
	ctx, err := devs[0].NewContext(0)
	if err != nil {
		return err
	}
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	b, err := rt.AllocAsync[float32](s, 1024)
	if err != nil {
		return err
	}
	if _, err := texobj.NewTexture(ctx, texobj.LinearResource(b.Ptr.Addr(), rt.FormatFloat, 1, 1024), rt.TextureDesc{}); err != nil {
		return err
	}
	var p [32]byte
	binary.LittleEndian.PutUint64(p[0:], uint64(b.Ptr))
	binary.LittleEndian.PutUint64(p[8:], uint64(b.Ptr))
	binary.LittleEndian.PutUint32(p[16:], 1024)
	cfg := rt.Linear(1024, 256)
	cfg.Stream = s
	if err := soakAxpy.Launch(cfg, p[:]); err != nil {
		return err
	}
	return ctx.Release()
}

// TestDroppedDriverIsCollected: a Driver a program drops (after a sticky
// fault, say) is garbage once it has been used through a package-level
// rt.Library and has destroyed a context: rt kept every such Driver alive
// through the library's bindings and its record of destroyed contexts.
func TestDroppedDriverIsCollected(t *testing.T) {
	w := func() weak.Pointer[Driver] {
		d := New(Options{Stdout: discard{}})
		devs, err := rt.DevicesOf(d)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := devs[0].NewContext(0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := rt.Alloc[float32](ctx, 256)
		if err != nil {
			t.Fatal(err)
		}
		var p [32]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(b.Ptr))
		binary.LittleEndian.PutUint64(p[8:], uint64(b.Ptr))
		binary.LittleEndian.PutUint32(p[16:], 256)
		cfg := rt.Linear(256, 256)
		cfg.Stream = ctx.NullStream()
		if err := soakAxpy.Launch(cfg, p[:]); err != nil {
			t.Fatal(err)
		}
		if err := ctx.Release(); err != nil {
			t.Fatal(err)
		}
		return weak.Make(d)
	}()
	// Another Driver takes the kernel's last binding (which holds its driver).
	other := New(Options{Stdout: discard{}})
	if _, err := soakAxpy.Handle(other); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		runtime.GC()
	}
	if w.Value() != nil {
		t.Error("the dropped Driver is still reachable")
	}
}

// TestFreedAllocationsForgotten: the memory index keeps a bounded history
// of freed allocations, and still names a recently freed one precisely.
func TestFreedAllocationsForgotten(t *testing.T) {
	e := newEnv(t, Options{})
	var last rt.DevPtr
	for range 3 * exec.KeepFreed {
		p, err := e.d.MemAlloc(e.ctx, 64)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.d.MemFree(e.ctx, p); err != nil {
			t.Fatal(err)
		}
		last = p
	}
	if n := e.d.mem.Spans(); n > 2*exec.KeepFreed+16 {
		t.Errorf("%d spans after %d allocations freed, want at most about %d", n, 3*exec.KeepFreed, 2*exec.KeepFreed)
	}
	var got [4]byte
	err := e.d.MemcpyDtoH(e.ctx, unsafe.Pointer(&got[0]), last, 4, 0, false)
	softtest.WantErr(t, err, rt.ErrInvalidValue, `inside a 64-byte allocation at .* \(cuMemAlloc\) that was freed`)
}
