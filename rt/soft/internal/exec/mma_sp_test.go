package exec

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestMMASpRecordings runs the recorded mma.sp forms (testdata/wgmma) in
// soft and compares D with the H100's, bit for bit.
func TestMMASpRecordings(t *testing.T) {
	recs := loadWGRecordings(t)
	e := newEnv(t, Config{})
	n := 0
	for _, f := range spRecForms() {
		want, ok := recs[f.Name+"."+wgInHash(f.In)]
		if !ok {
			t.Errorf("%s: not recorded (or its inputs changed)", f.Name)
			continue
		}
		got := runRecForm(e, f, f.In, f.Grid)
		if got == nil {
			continue
		}
		if d := firstDiff(got, want); d >= 0 {
			t.Errorf("%s: differs from the H100 from byte %d of %d (%s)", f.Name, d, len(got), diffAt(got, want, d, f.OutSize))
		}
		n++
	}
	if n == 0 {
		t.Fatal("no mma.sp recordings")
	}
	t.Logf("%d mma.sp forms checked bit for bit", n)
}

// TestMMASpRefused: mma.sp forms soft does not run, malformed operands and
// selectors fail at load with the position and a reason.
func TestMMASpRefused(t *testing.T) {
	e := newEnv(t, Config{})
	d4, c4 := "{%f0,%f1,%f2,%f3}", "{%f4,%f5,%f6,%f7}"
	for _, c := range []struct{ instr, want string }{
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 1", ""},
		{"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, " + c4 + ", %r6, 0", ""},
		{"mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3}, %r6, 0", ""},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 3", ""},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 4", "integer constant 0..3"},
		{"mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, " + c4 + ", %r6, 2", "out of range"},
		{"mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3}, %r6, 1", "out of range"},
		{"mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, " + c4 + ", %r6, 1", ""},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, %r7", "integer constant"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5}, " + c4 + ", %r6, 0", "vector of 2 registers"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6", "sparsity selector"},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r0,%r1}, {%r0,%r1}, {%r4,%r5}, {%r2,%r3}, %r6, 3", ""},
		{"mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, " + c4 + ", %r6, 0", ""},
		{"mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3}, %r6, 0", ""},
		{"mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 3", ""},
		{"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 " + d4 + ", {%r0,%r1}, {%r4,%r5}, {%r2,%r3}, %r6, 0", "not supported by the soft backend"},
		{"mma.sp.sync.aligned.m16n8k64.row.col.f16.e4m3.e4m3.f16 {%r0,%r1}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r2,%r3}, %r6, 0", "not supported by the soft backend"},
		{"mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 " + d4 + ", {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, " + c4 + ", %r6, 1", "out of range"},
		{"mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1,%r2,%r3}, %r6, 1", "out of range"},
		{"mma.sp.sync.aligned.m16n8k32.row.col.f32.s8.s8.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 0", "not supported by the soft backend"},
		{"mma.sp.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 0", "row.col"},
		{"mma.sp::unordered.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 " + d4 + ", {%r0,%r1}, {%r4,%r5}, " + c4 + ", %r6, 0", "not supported"},
	} {
		src := ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n\t" + c.instr + ";\n\tret;\n}\n"
		_, err := e.loadNamed([]byte(src), "bad.ptx")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.instr, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.ptx:9:") {
			t.Errorf("%s:\n\tgot %v\n\twant an error at bad.ptx:9 mentioning %q", c.instr, err, c.want)
		}
	}
}

// spMetaKernel: one warp runs mma.sp m16n8k16 .f16 with A and B all ones
// and C zero, T0 of each group of four holding metadata m0 and the other
// lanes m1, and stores D (each element counts the products kept: 8).
func spMetaKernel(sel int, m0, m1 uint32) string {
	return sprintf(`.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %%r<12>;
	.reg .f32 %%f<8>;
	.reg .b64 %%rd<3>;
	.reg .pred %%p;
	ld.param.u64 %%rd0, [out];
	mov.u32 %%r8, %%laneid;
	and.b32 %%r9, %%r8, 3;
	setp.eq.u32 %%p, %%r9, 0;
	selp.b32 %%r6, %d, %d, %%p;
	mov.b32 %%r0, 0x3c003c00;
	mov.f32 %%f4, 0f00000000;
	mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%%f0,%%f1,%%f2,%%f3}, {%%r0,%%r0}, {%%r0,%%r0}, {%%f4,%%f4,%%f4,%%f4}, %%r6, %d;
	mul.wide.u32 %%rd1, %%r8, 16;
	add.u64 %%rd2, %%rd0, %%rd1;
	st.global.v4.f32 [%%rd2], {%%f0,%%f1,%%f2,%%f3};
	ret;
}
`, m0, m1, sel)
}

// TestMMASpMetadata: only the selected lanes' metadata is read; invalid
// metadata there stops the launch with a message naming the lane.
func TestMMASpMetadata(t *testing.T) {
	e := newEnv(t, Config{})
	run := func(e *env, sel int, m0, m1 uint32) ([]float32, error) {
		h, err := e.loadNamed([]byte(spMetaKernel(sel, m0, m1)), "sp.ptx")
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float32, 32*4)
		p := e.buf(out)
		err = e.launchErr(e.kernel(h, "k"), rt.D1(1), rt.D1(32), 0, p)
		if err == nil {
			e.get(p, out)
		}
		return out, err
	}
	// Valid metadata in T0 only (0x9 and 0xe alternate), zeros elsewhere.
	out, err := run(e, 0, 0xe9e9e9e9, 0)
	if err != nil {
		t.Fatalf("selector 0, valid metadata in T0: %v", err)
	}
	for i, v := range out {
		if v != 8 {
			t.Fatalf("D[%d] = %v, want 8 (8 kept products of ones)", i, v)
		}
	}
	// Selector 1 reads T1's (invalid) metadata: a fault, on a driver of its
	// own (faults are sticky).
	_, err = run(newEnv(t, Config{}), 1, 0xe9e9e9e9, 0)
	if err == nil || !strings.Contains(err.Error(), "invalid sparsity metadata 0") || !strings.Contains(err.Error(), "lane 1") {
		t.Fatalf("selector 1 with zero metadata in T1: got %v, want an invalid-metadata fault naming lane 1", err)
	}
}
