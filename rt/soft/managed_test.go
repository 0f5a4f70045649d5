package soft

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// managedPTX is a library whose __managed__ variable m starts as v, with a
// kernel that copies m's address and value to out.
func managedPTX(v int) string {
	return ptxHeader + fmt.Sprintf(`
.visible .global .attribute(.managed) .align 4 .u32 m = %d;
.visible .entry get(.param .u64 out)
{
	.reg .b32 %%r<2>;
	.reg .b64 %%rd<3>;
	ld.param.u64 %%rd1, [out];
	mov.u64 %%rd2, m;
	ld.global.u32 %%r1, [m];
	st.global.u64 [%%rd1], %%rd2;
	st.global.u32 [%%rd1+8], %%r1;
	ret;
}
`, v)
}

// TestManagedFirstUseConcurrent loads libraries in parallel goroutines,
// round after round, and has them all place their __managed__ variable at
// the same moment, then read it from a kernel, then unload: every live
// variable must have an address of its own, and each kernel must read its
// own library's value. Placing the variable and recording the allocation
// were once two steps, so two libraries could be given one address; the
// first to unload then left the other's kernel a "freed" illegal address.
func TestManagedFirstUseConcurrent(t *testing.T) {
	const libs, rounds = 8, 25
	d := New(Options{Workers: 1})
	ctx, err := d.PrimaryCtxRetain(0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.PrimaryCtxRelease(0)
	for r := 0; r < rounds; r++ {
		handles := make([]rt.LibHandle, libs)
		for i := range handles {
			if handles[i], err = d.LibraryLoad([]byte(managedPTX(r*libs+i)), rt.LoadOptions{Name: fmt.Sprintf("m%d.ptx", i)}); err != nil {
				t.Fatal(err)
			}
		}
		addrs := make([]rt.DevPtr, libs)
		start := make(chan struct{})
		var placed, done sync.WaitGroup
		placed.Add(libs)
		done.Add(libs)
		errs := make(chan error, 2*libs)
		for i := 0; i < libs; i++ {
			go func(i int) {
				defer done.Done()
				<-start
				p, _, err := d.LibraryManaged(ctx, handles[i], "m")
				addrs[i] = p
				placed.Done()
				if err != nil {
					errs <- err
					return
				}
				placed.Wait() // every library has placed its variable
				out, err := d.MemAlloc(ctx, 16)
				if err != nil {
					errs <- err
					return
				}
				defer d.MemFree(ctx, out)
				k, err := d.LibraryKernel(handles[i], "get")
				if err != nil {
					errs <- err
					return
				}
				pp := params(out)
				la := rt.LaunchArgs{Ctx: ctx, Grid: rt.D1(1), Block: rt.D1(1), Params: unsafe.Pointer(&pp[0]), ParamSize: uintptr(len(pp))}
				if err := d.Launch(k, la); err != nil {
					errs <- err
					return
				}
				var got [3]uint32
				if err := d.MemcpyDtoH(ctx, unsafe.Pointer(&got[0]), out, 12, 0, false); err != nil {
					errs <- fmt.Errorf("library %d: %w", i, err)
					return
				}
				if addr := rt.DevPtr(got[0]) | rt.DevPtr(got[1])<<32; addr != p || got[2] != uint32(r*libs+i) {
					errs <- fmt.Errorf("library %d's kernel saw m at %#x holding %d; LibraryManaged said %#x, the PTX initialises it to %d", i, addr, got[2], p, r*libs+i)
				}
				// Unloading while the others still run their kernels is
				// the churn that exposed the shared address.
				if err := d.LibraryUnload(handles[i]); err != nil {
					errs <- err
				}
			}(i)
		}
		close(start)
		done.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", r, err)
		}
		seen := map[rt.DevPtr]int{}
		for i, p := range addrs {
			if j, dup := seen[p]; dup {
				t.Fatalf("round %d: libraries %d and %d were both given managed address %#x", r, j, i, p)
			}
			seen[p] = i
		}
	}
}
