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

const texCtxEnv = "CUGEN_CGO_TEXCTX_CHILD"

// TestTextureOfAnotherContextGPU asks the GPU what a kernel of context B
// that samples a texture object made in context A gets: an error code, or
// values (rt/soft faults with CUDA_ERROR_ILLEGAL_ADDRESS). The child
// process prints one line, "RESULT: ...", which the parent logs: the probe
// for the lead, since a fault is sticky. The parent fails if the child
// cannot run the probe at all.
func TestTextureOfAnotherContextGPU(t *testing.T) {
	if os.Getenv(texCtxEnv) != "" {
		fmt.Println("RESULT:", texCtxProbe(t))
		return
	}
	gpu(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestTextureOfAnotherContextGPU$", "-test.v")
	cmd.Env = append(os.Environ(), texCtxEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child process:\n%s", regexp.MustCompile(`(?m)^`).ReplaceAllString(strings.TrimRight(string(out), "\n"), "child| "))
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if !strings.Contains(string(out), "RESULT:") {
		t.Fatal("the child printed no RESULT line")
	}
}

func texCtxProbe(t *testing.T) string {
	d := gpu(t)
	lib := rt.NewLibrary("fetch.ptx", []byte(fetchPTX+"\x00"))
	k := lib.Kernel("fetch1d", rt.ParamSpec{Offset: 0, Size: 8}, rt.ParamSpec{Offset: 8, Size: 8})
	devs, err := rt.DevicesOf(d)
	must(t, err)
	a, err := devs[0].Primary()
	must(t, err)
	b, err := devs[0].NewContext(0)
	must(t, err)
	texels, err := rt.AllocFrom(a, []uint32{7, 8, 9, 10})
	must(t, err)
	tex, err := rt.NewTexture(a, rt.LinearResource(texels.Ptr.Addr(), rt.FormatUint32, 1, 4), rt.TextureDesc{})
	must(t, err)
	run := func(c *rt.Context) string {
		res, err := rt.AllocFrom(c, []uint32{0xdead, 0xdead, 0xdead, 0xdead})
		if err != nil {
			return "alloc: " + err.Error()
		}
		var p [16]byte
		binary.LittleEndian.PutUint64(p[0:], uint64(tex.Object))
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
	own := run(a)
	return fmt.Sprintf("texture object %#x of context A: in A %s; in B %s", uint64(tex.Object), own, run(b))
}
