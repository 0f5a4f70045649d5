//go:build cgo

package cgo

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/tex/texobj"
)

// fetchPTX reads a linear u32 texture: res[i] = tex1Dfetch(tex, i).
const fetchPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry fetch1d(.param .u64 tex, .param .u64 res)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [tex];
	ld.param.u64 %rd2, [res];
	mov.u32 %r1, %tid.x;
	tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r2;
	ret;
}
`

// bumpPTX reads and bumps a 1-D u32 surface: res[i] = s[i]; s[i]++.
const bumpPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry bump1d(.param .u64 surf, .param .u64 res)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [surf];
	ld.param.u64 %rd2, [res];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	suld.b.1d.b32.trap {%r3}, [%rd1, {%r2}];
	mul.wide.u32 %rd4, %r1, 4;
	add.u64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r3;
	add.u32 %r4, %r3, 1;
	sust.b.1d.b32.trap [%rd1, {%r2}], {%r4};
	ret;
}
`

const texCtxEnv = "CUGEN_CGO_TEXCTX_CHILD"

// texCtxCases are the probes, one child process each (a fault is sticky):
// a texture object of context A sampled in context B, one never made, one
// destroyed, and a surface object of A read and written in B.
var texCtxCases = []string{"texture-in-other-context", "texture-never-made", "texture-destroyed", "surface-in-other-context"}

// TestTextureOfAnotherContextGPU asks the GPU what a kernel gets from a
// texture or surface object handle that is not live in its context: an
// error code, or values (rt/soft follows what this printed on the H200:
// see texctx_test.go). Each child prints one line, "RESULT: ...", which
// the parent logs. The parent fails if a child cannot run its probe.
func TestTextureOfAnotherContextGPU(t *testing.T) {
	if c := os.Getenv(texCtxEnv); c != "" {
		fmt.Println("RESULT:", c+":", texCtxProbe(t, c))
		return
	}
	gpu(t)
	for _, c := range texCtxCases {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestTextureOfAnotherContextGPU$", "-test.v")
		cmd.Env = append(os.Environ(), texCtxEnv+"="+c)
		out, err := cmd.CombinedOutput()
		t.Logf("child process %s:\n%s", c, regexp.MustCompile(`(?m)^`).ReplaceAllString(strings.TrimRight(string(out), "\n"), "child| "))
		if err != nil {
			t.Errorf("child %s: %v", c, err)
		}
		if !strings.Contains(string(out), "RESULT:") {
			t.Errorf("the child %s printed no RESULT line", c)
		}
	}
}

func texCtxProbe(t *testing.T, which string) string {
	d := gpu(t)
	devs, err := rt.DevicesOf(d)
	must(t, err)
	a, err := devs[0].Primary()
	must(t, err)
	b, err := devs[0].NewContext(0)
	must(t, err)
	// run launches k on c's NULL stream with the handle h and a result
	// buffer, and says what the kernel read, or the error.
	run := func(k *rt.Kernel, c *rt.Context, h uint64) string {
		res, err := rt.AllocFrom(c, []uint32{0xdead, 0xdead, 0xdead, 0xdead})
		if err != nil {
			return "alloc: " + err.Error()
		}
		var p [16]byte
		binary.LittleEndian.PutUint64(p[0:], h)
		binary.LittleEndian.PutUint64(p[8:], uint64(res.Ptr))
		if err := k.Launch(rt.Config{Grid: rt.D1(1), Block: rt.D1(4), Stream: c.NullStream()}, p[:]); err != nil {
			return "launch: " + err.Error()
		}
		if err := c.Synchronize(); err != nil {
			return "sync: " + err.Error()
		}
		got, err := res.ToHost()
		if err != nil {
			return "copy: " + err.Error()
		}
		return fmt.Sprintf("read %v", got)
	}
	params := []rt.ParamSpec{{Offset: 0, Size: 8}, {Offset: 8, Size: 8}}
	if which == "surface-in-other-context" {
		k := rt.NewLibrary("bump.ptx", []byte(bumpPTX+"\x00")).Kernel("bump1d", params...)
		arr, err := texobj.NewArray(a, rt.ArrayDesc{Width: 4, Height: 0, Format: rt.FormatUint32, Channels: 1, Flags: rt.ArraySurfaceLoadStore})
		must(t, err)
		must(t, texobj.CopyToArray(arr, []uint32{7, 8, 9, 10}))
		surf, err := texobj.NewSurface(arr)
		must(t, err)
		own := run(k, a, uint64(surf.Object))
		other := run(k, b, uint64(surf.Object))
		back := make([]uint32, 4)
		after := "array after: "
		if err := texobj.CopyFromArray(arr, back); err != nil {
			after += err.Error()
		} else {
			after += fmt.Sprint(back)
		}
		return fmt.Sprintf("surface object %#x of context A: in A %s; in B %s; %s (A's bump alone leaves [8 9 10 11])", uint64(surf.Object), own, other, after)
	}
	k := rt.NewLibrary("fetch.ptx", []byte(fetchPTX+"\x00")).Kernel("fetch1d", params...)
	texels, err := rt.AllocFrom(a, []uint32{7, 8, 9, 10})
	must(t, err)
	tex, err := texobj.NewTexture(a, texobj.LinearResource(texels.Ptr.Addr(), rt.FormatUint32, 1, 4), rt.TextureDesc{})
	must(t, err)
	switch which {
	case "texture-in-other-context":
		own := run(k, a, uint64(tex.Object))
		return fmt.Sprintf("texture object %#x of context A: in A %s; in B %s", uint64(tex.Object), own, run(k, b, uint64(tex.Object)))
	case "texture-never-made":
		return fmt.Sprintf("handle 0x1234 (never made; A has %#x): in A %s", uint64(tex.Object), run(k, a, 0x1234))
	case "texture-destroyed":
		h := uint64(tex.Object)
		own := run(k, a, h)
		must(t, tex.Destroy())
		return fmt.Sprintf("texture object %#x: in A %s; destroyed, in A %s", h, own, run(k, a, h))
	}
	return "unknown case " + which
}
