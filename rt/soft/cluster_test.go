package soft

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestClusterSpecialsH100: the cluster special registers of every CTA
// (%cluster_ctarank, %cluster_nctarank, %cluster_ctaid, %cluster_nctaid,
// %clusterid, %nclusterid, %is_explicit_cluster) in a 4x2x2 grid of 2x2x1
// clusters, without clusters, and with the kernel's __cluster_dims__, as
// the H100 reported them.
func TestClusterSpecialsH100(t *testing.T) {
	rec := readRecording(t, "cluster_h100.txt")
	e := newEnv(t, Options{})
	lib := e.load("async/cluster.ptx")
	for _, c := range []struct {
		name, kernel string
		grid, cl     rt.Dim3
	}{
		{"specials_cluster221_grid422", "clusterSpecials", rt.D3(4, 2, 2), rt.D3(2, 2, 1)},
		{"specials_plain_grid321", "clusterSpecials", rt.D3(3, 2, 1), rt.Dim3{}},
		{"specials_fixed_grid4", "clusterFixed", rt.D1(4), rt.Dim3{}},
	} {
		want := recorded(t, rec, c.name)
		out := e.buf(u32s(len(want)))
		if err := e.launchEx(e.kernel(lib, c.kernel), c.grid, rt.D1(32), c.cl, 0, params(out)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := u32s(len(want))
		e.get(out, got)
		compareWords(t, c.name, got, want)
	}
}

// TestClusterRingH100: distributed shared memory. Each CTA of 4-CTA
// clusters reads its neighbours' shared memory through mapa (a
// .shared::cluster and a generic address), asks getctarank whose it is,
// and adds into rank 0's counter with red.shared::cluster, between
// cluster barriers.
func TestClusterRingH100(t *testing.T) {
	rec := readRecording(t, "cluster_h100.txt")
	for _, det := range []bool{false, true} {
		e := newEnv(t, Options{Deterministic: det})
		k := e.kernel(e.load("async/cluster.ptx"), "clusterRing")
		ring, counter := e.buf(u32s(8*128*3)), e.buf(u32s(8))
		if err := e.launchEx(k, rt.D2(4, 2), rt.D1(128), rt.D1(4), 0, params(ring, counter)); err != nil {
			t.Fatal(err)
		}
		got, cnt := u32s(8*128*3), u32s(8)
		e.get(ring, got)
		e.get(counter, cnt)
		compareWords(t, "ring", got, recorded(t, rec, "ring"))
		compareWords(t, "ring_counter", cnt, recorded(t, rec, "ring_counter"))
	}
}

// TestClusterBulkH100: a multicast cp.async.bulk from rank 0 fills all
// four CTAs' shared memory, each completing its own mbarrier's tx-count;
// each CTA writes it back with cp.async.bulk.global.shared::cta and adds
// it with cp.reduce.async.bulk .add.u32.
func TestClusterBulkH100(t *testing.T) {
	rec := readRecording(t, "cluster_h100.txt")
	e := newEnv(t, Options{})
	k := e.kernel(e.load("async/cluster.ptx"), "clusterBulk")
	const n = 4096
	src := u32s(n / 4)
	for i := range src {
		src[i] = uint32(i*7 + 1)
	}
	dst, acc := e.buf(u32s(n)), e.buf(u32s(n/4))
	if err := e.launchEx(k, rt.D1(4), rt.D1(128), rt.D1(4), 0, params(e.buf(src), dst, acc, uint32(n))); err != nil {
		t.Fatal(err)
	}
	d, a := u32s(n), u32s(n/4)
	e.get(dst, d)
	e.get(acc, a)
	compareWords(t, "bulk_dst", d, recorded(t, rec, "bulk_dst"))
	compareWords(t, "bulk_acc", a, recorded(t, rec, "bulk_acc"))
}

// TestClusterLaunchErrors: cluster shapes the driver refuses.
func TestClusterLaunchErrors(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.load("async/cluster.ptx")
	out := e.buf(u32s(1024))
	for _, c := range []struct {
		kernel   string
		grid, cl rt.Dim3
		want     string
	}{
		{"clusterSpecials", rt.D1(6), rt.D1(4), "not a whole number of clusters"},
		{"clusterSpecials", rt.D1(32), rt.D1(32), "CUDA_ERROR_INVALID_CLUSTER_SIZE (a kernel launch error has occurred due to cluster misconfiguration): kernel clusterSpecials: cluster 32x1x1 has 32 blocks, more than the device's 16"},
		{"clusterSpecials", rt.D1(16), rt.D1(16), "CUDA_ERROR_INVALID_CLUSTER_SIZE (a kernel launch error has occurred due to cluster misconfiguration): kernel clusterSpecials: cluster 16x1x1 has 16 blocks, more than the portable 8: allow more with rt.Kernel.AllowNonPortableClusterSize"},
		{"clusterFixed", rt.D1(4), rt.D1(4), "differs from the kernel's .reqnctapercluster"},
	} {
		err := e.launchEx(e.kernel(lib, c.kernel), c.grid, rt.D1(32), c.cl, 0, params(out))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s grid %v cluster %v: error %v, want %q", c.kernel, c.grid, c.cl, err, c.want)
		}
	}
}

const clusterPTX = `
.version 8.0
.target sm_90
.address_size 64

// badRank reads the shared memory of a CTA the cluster does not have.
.visible .entry badRank()
{
	.reg .b32 %r<4>;
	.shared .align 4 .u32 v;
	mov.u32 %r1, v;
	mapa.shared::cluster.u32 %r2, %r1, 7;
	ret;
}

// halfArrive: warp 0 waits at the cluster barrier for warp 1, which
// waits at a CTA barrier for warp 0.
.visible .entry halfArrive()
{
	.reg .pred %p1;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra W;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
W:
	bar.sync 1, 64;
	ret;
}

// oob reads past the end of the neighbour's shared memory.
.visible .entry oob()
{
	.reg .b32 %r<4>;
	.shared .align 4 .b8 v[16];
	mov.u32 %r1, v;
	add.u32 %r1, %r1, 16;
	mapa.shared::cluster.u32 %r2, %r1, 1;
	ld.shared::cluster.u32 %r3, [%r2];
	ret;
}
`

// TestClusterErrors: a mapa to a rank outside the cluster, a cluster
// barrier some threads never reach, and an access past another CTA's
// shared memory stop the launch with errors that say so.
func TestClusterErrors(t *testing.T) {
	e := newEnv(t, Options{})
	lib := e.loadSrc("cl.ptx", clusterPTX)
	for _, c := range []struct {
		kernel string
		want   []string
	}{
		{"badRank", []string{"mapa to the CTA of rank 7, but the cluster has 2", "cl.ptx:12"}},
		{"halfArrive", []string{"deadlock", "barrier 1 has 32 of 64 threads", "the cluster barrier has 64 of 128 threads"}},
		{"oob", []string{"out of bounds", "the cluster's CTA of rank 1 has 1040 bytes of shared memory (the 1024 the system reserves at 0, then 16 of its own)", "cl.ptx:41"}},
	} {
		err := e.launchEx(e.kernel(lib, c.kernel), rt.D1(2), rt.D1(64), rt.D1(2), 0, nil)
		e.reset() // the fault is sticky
		if err == nil {
			t.Errorf("%s: no error", c.kernel)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.kernel, err, w)
			}
		}
	}
}
