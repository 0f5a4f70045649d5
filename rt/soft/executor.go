// The driver's side of the executor: each context is the Host of the
// launches that run in it, through which the executor reaches the driver.

package soft

import (
	"fmt"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/soft/internal/exec"
)

var _ exec.Host = (*context)(nil)

// ownerOf is the context that owns a, nil for managed memory.
func ownerOf(a *exec.Alloc) *context {
	c, _ := a.Owner.(*context)
	return c
}

// Reach is peer access from c to a's context (peer.go).
func (c *context) Reach(a *exec.Alloc) string {
	o := ownerOf(a)
	switch {
	case o == nil || !c.d.peerOK(c, o):
		return "and peer access to it is not enabled"
	case c.d.pooled(a.Base):
		return fmt.Sprintf("stream-ordered memory (cuMemAllocAsync) of device %d's pool, which gives device %d no access: peer access does not cover pool memory (cuMemPoolSetAccess does, which rt does not wrap)", o.dev.ord, c.dev.ord)
	}
	return ""
}

// Alloc is allocate in c.
func (c *context) Alloc(op string, n uint64, what string) (*exec.Alloc, error) {
	return c.d.allocate(op, c, n, what)
}

// Free frees a, an allocation of c.
func (c *context) Free(a *exec.Alloc) bool {
	c.mu.Lock()
	if c.allocs[a.Base] != a {
		c.mu.Unlock()
		return false
	}
	delete(c.allocs, a.Base)
	c.mu.Unlock()
	c.d.mem.Free(a)
	c.dev.release(a.Size)
	return true
}

// Vars is the addresses of m's variables in c (library.go).
func (c *context) Vars(m *exec.Module) ([]uint64, error) {
	c.d.mu.Lock()
	lib := c.d.modLibs[m]
	c.d.mu.Unlock()
	if lib == nil {
		return nil, rt.Errorf("cuLibraryGetGlobal", rt.ErrInvalidHandle, "library was unloaded")
	}
	in, err := lib.instance(c)
	if err != nil {
		return nil, err
	}
	return in.addr, nil
}

// CheckLaunch is checkLaunch in c (launch.go).
func (c *context) CheckLaunch(op string, p *exec.Program, la rt.LaunchArgs) error {
	return c.d.checkLaunch(op, p, c, la)
}

// TexObject is the object h of the driver (texture.go), if it was made in
// c: texture and surface objects belong to their context, as on a GPU,
// where a handle means nothing in another context.
func (c *context) TexObject(h uint64, surface bool) *exec.TexObject {
	b := c.d.texObject(h, surface)
	if b == nil || b.Ctx != c {
		return nil
	}
	return &b.TexObject
}

// Print writes to Options.Stdout, one text at a time.
func (c *context) Print(text string) {
	d := c.d
	d.outMu.Lock()
	_, _ = d.opt.Stdout.Write([]byte(text))
	d.outMu.Unlock()
}

// Faulted is the driver's first sticky fault (sticky.go).
func (c *context) Faulted() *rt.Error { return c.d.fault.Load() }

// Runtime is c's device-runtime state.
func (c *context) Runtime() *exec.Runtime { return &c.runtime }
