package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cugen/cugen/rt"
	"github.com/cugen/cugen/rt/nccl"
	"github.com/cugen/cugen/rt/soft"
)

// The test binary re-executes itself as the ranks of a job, with the
// variables torchrun would set: envChild names what the child does.
const envChild = "CUGEN_NCCL_TEST_CHILD"

// envChildBackend, set to cuda, makes the children use the GPU (one per
// local rank) instead of a soft device.
const envChildBackend = "CUGEN_NCCL_TEST_BACKEND"

func TestMain(m *testing.M) {
	if role := os.Getenv(envChild); role != "" {
		os.Exit(child(role))
	}
	os.Exit(m.Run())
}

// launchers' variables that a test's environment must not leak into the
// cases.
var launchVars = []string{"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
	"TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
	"MPI_LOCALNRANKS", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", nccl.EnvAddr}

func TestLaunchEnv(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want nccl.Launch
		err  string
	}{
		{"torchrun", map[string]string{"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
			"MASTER_ADDR": "node0", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "x", "TORCHELASTIC_USE_AGENT_STORE": "True"},
			nccl.Launch{Rank: 3, Size: 8, LocalRank: 1, LocalSize: 2, Addr: "node0:29501", Launcher: "torchrun"}, ""},
		{"torchrun without the agent's store", map[string]string{"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0",
			"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "1234", "TORCHELASTIC_RUN_ID": "x", "TORCHELASTIC_USE_AGENT_STORE": "False"},
			nccl.Launch{Rank: 0, Size: 2, Addr: "10.0.0.1:1234", Launcher: "torchrun"}, ""},
		{"plain RANK", map[string]string{"RANK": "1", "WORLD_SIZE": "2"}, nccl.Launch{Rank: 1, Size: 2, LocalRank: 1, Launcher: "env"}, ""},
		{"override", map[string]string{"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "1", nccl.EnvAddr: "[::1]:99"},
			nccl.Launch{Rank: 1, Size: 2, LocalRank: 1, Addr: "[::1]:99", Launcher: "env"}, ""},
		{"openmpi", map[string]string{"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "6", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
			"OMPI_COMM_WORLD_LOCAL_SIZE": "2", "SLURM_PROCID": "9", "MASTER_ADDR": "h", "MASTER_PORT": "7"},
			nccl.Launch{Rank: 5, Size: 6, LocalRank: 1, LocalSize: 2, Addr: "h:7", Launcher: "openmpi"}, ""},
		{"mpich", map[string]string{"PMI_RANK": "2", "PMI_SIZE": "4", "MPI_LOCALRANKID": "0", "MPI_LOCALNRANKS": "1"},
			nccl.Launch{Rank: 2, Size: 4, Launcher: "mpich", LocalSize: 1}, ""},
		{"slurm", map[string]string{"SLURM_PROCID": "7", "SLURM_NTASKS": "8", "SLURM_LOCALID": "3", "SLURM_NTASKS_PER_NODE": "4(x2)"},
			nccl.Launch{Rank: 7, Size: 8, LocalRank: 3, LocalSize: 4, Launcher: "slurm"}, ""},
		{"nothing", map[string]string{}, nccl.Launch{}, "no launcher's variables"},
		{"rank beyond size", map[string]string{"RANK": "2", "WORLD_SIZE": "2"}, nccl.Launch{}, "RANK=2 of WORLD_SIZE=2"},
		{"not a number", map[string]string{"SLURM_PROCID": "x", "SLURM_NTASKS": "2"}, nccl.Launch{}, `SLURM_PROCID="x" is not a rank`},
		{"missing size", map[string]string{"OMPI_COMM_WORLD_RANK": "0"}, nccl.Launch{}, "OMPI_COMM_WORLD_SIZE is not set"},
		{"bad port", map[string]string{"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "h", "MASTER_PORT": "http"}, nccl.Launch{}, `MASTER_PORT="http"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range launchVars {
				t.Setenv(v, "")
				os.Unsetenv(v)
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			got, err := nccl.LaunchEnv()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("err = %v, want one mentioning %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestShareIDInProcess(t *testing.T) {
	addr := freeAddr(t)
	const n = 4
	ids := make([]nccl.UniqueID, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[r], errs[r] = nccl.ShareID(t.Context(), addr, r, n, func() (nccl.UniqueID, error) {
				var id nccl.UniqueID
				copy(id[:], "the id")
				return id, nil
			})
		}()
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil || string(ids[r][:6]) != "the id" {
			t.Errorf("rank %d: %q, %v", r, ids[r][:6], errs[r])
		}
	}
	// A rank that never comes: rank 0 names it; a lone rank 1 names the
	// address it could not reach.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := nccl.ShareID(ctx, freeAddr(t), 0, 3, func() (nccl.UniqueID, error) { return nccl.UniqueID{}, nil })
	if !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "ranks 1, 2 of 3 never connected") {
		t.Errorf("rank 0 alone: %v", err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	a := freeAddr(t)
	_, err = nccl.ShareID(ctx, a, 1, 3, nil)
	if !errors.Is(err, nccl.RemoteError) || !strings.Contains(err.Error(), "rank 1 of 3 could not get the UniqueID") || !strings.Contains(err.Error(), a) {
		t.Errorf("rank 1 alone: %v", err)
	}
}

// freeAddr is a loopback address with a free port (and, torchrun-style,
// the port above it free too).
func freeAddr(t *testing.T) string {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		up, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+1))
		ln.Close()
		if err == nil {
			up.Close()
			return ln.Addr().String()
		}
	}
	t.Fatal("no two free consecutive ports")
	return ""
}

// job runs n ranks of the test binary as child processes with role and
// torchrun's variables; extra adds to every rank's environment. It
// returns each rank's output and error.
func job(t *testing.T, role string, n, size int, extra ...string) ([]string, []error) {
	t.Helper()
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	// torchrun's agent holds MASTER_PORT for its own store.
	agent, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	out := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool {
			name, _, _ := strings.Cut(v, "=")
			return slices.Contains(launchVars, name)
		}), envChild+"="+role, "RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(size), "LOCAL_RANK="+strconv.Itoa(r),
			"LOCAL_WORLD_SIZE="+strconv.Itoa(size), "MASTER_ADDR="+host, "MASTER_PORT="+port,
			"TORCHELASTIC_RUN_ID=test", "TORCHELASTIC_USE_AGENT_STORE=True")
		cmd.Env = append(cmd.Env, extra...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := cmd.CombinedOutput()
			out[r], errs[r] = string(b), err
		}()
	}
	wg.Wait()
	return out, errs
}

// Two and three processes, one soft device each, bootstrapped as torchrun
// launches them: every operation, a split and a graph, over loopback.
func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, n := range []int{2, 3} {
		out, errs := job(t, "ops", n, n)
		for r := range out {
			if errs[r] != nil || !strings.Contains(out[r], "rank "+strconv.Itoa(r)+" ok") {
				t.Errorf("%d ranks, rank %d: %v\n%s", n, r, errs[r], out[r])
			}
		}
	}
}

// A rank that dies: the others' next operation fails, saying so.
func TestMultiProcessPeerDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	out, errs := job(t, "die", 3, 3)
	for r := range out {
		if r == 1 {
			continue
		}
		if errs[r] != nil || !strings.Contains(out[r], "expected failure") {
			t.Errorf("rank %d: %v\n%s", r, errs[r], out[r])
		}
	}
}

// A rank that never starts: rank 0's bootstrap names it.
func TestMultiProcessPeerMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	out, errs := job(t, "missing", 2, 3)
	if errs[0] != nil || !strings.Contains(out[0], "expected failure") || !strings.Contains(out[0], "rank 2 of 3 never connected") {
		t.Errorf("rank 0: %v\n%s", errs[0], out[0])
	}
	if errs[1] != nil || !strings.Contains(out[1], "expected failure") {
		t.Errorf("rank 1: %v\n%s", errs[1], out[1])
	}
}

// childRoles are the other things a child can be asked to do.
var childRoles = map[string]func() error{}

// child is one rank of a job the test started.
func child(role string) int {
	run := func() error { return childRun(role) }
	if f, ok := childRoles[role]; ok {
		run = f
	}
	if err := run(); err != nil {
		fmt.Println("FAIL:", err)
		return 1
	}
	return 0
}

func childRun(role string) error {
	l, err := nccl.LaunchEnv()
	if err != nil {
		return err
	}
	var d rt.Driver = soft.New(soft.Options{Devices: l.LocalSize})
	if os.Getenv(envChildBackend) == "cuda" {
		if d, err = rt.Open("cuda"); err != nil {
			return err
		}
	}
	dev, err := l.Device(d)
	if err != nil {
		return err
	}
	ctx, err := dev.Primary()
	if err != nil {
		return err
	}
	s, err := ctx.NewStream()
	if err != nil {
		return err
	}
	timeout := 30 * time.Second
	if role != "ops" {
		timeout = 2 * time.Second
	}
	bctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := l.Comm(bctx, ctx, &nccl.Options{PeerTimeout: timeout})
	if role == "missing" {
		if err == nil {
			return errors.New("a communicator without rank 2")
		}
		fmt.Println("expected failure:", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Printf("rank %d: %v\n", l.Rank, c)
	switch role {
	case "die":
		if c.Rank() == 1 {
			os.Exit(3)
		}
		return expectPeerGone(c, ctx, s)
	case "ops":
		if err := childOps(c, ctx, s); err != nil {
			return err
		}
		if err := c.Destroy(); err != nil {
			return err
		}
		fmt.Printf("rank %d ok\n", l.Rank)
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}

func expectPeerGone(c *nccl.Comm, ctx *rt.Context, s *rt.Stream) error {
	b, err := rt.AllocFrom(ctx, []int32{1})
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond) // rank 1 is gone by now
	if err := nccl.AllReduceInPlace(c, b, nccl.Sum, s); err != nil {
		return err
	}
	s.Synchronize()
	err = c.AsyncError()
	if !errors.Is(err, nccl.RemoteError) && !errors.Is(err, nccl.SystemError) {
		return fmt.Errorf("AllReduce without rank 1: %v", err)
	}
	fmt.Println("expected failure:", err)
	return c.Abort()
}

// childOps runs every operation on a job's communicator, then every
// operation inside a graph, and checks the results, for any number of
// ranks.
func childOps(c *nccl.Comm, ctx *rt.Context, s *rt.Stream) error {
	rank, n := c.Rank(), c.Size()
	check := func(what string, b rt.Buffer[int32], want []int32) error {
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := c.AsyncError(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		got, err := b.ToHost()
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s on rank %d: %v, want %v", what, rank, got, want)
		}
		return nil
	}
	mine, _ := rt.AllocFrom(ctx, []int32{int32(rank + 1), int32(10 * rank)})
	out, _ := rt.Alloc[int32](ctx, 2)
	if err := nccl.AllReduce(c, mine, out, nccl.Sum, s); err != nil {
		return err
	}
	if err := check("AllReduce", out, []int32{int32(n * (n + 1) / 2), int32(10 * n * (n - 1) / 2)}); err != nil {
		return err
	}
	if err := nccl.BroadcastInPlace(c, mine, n-1, s); err != nil {
		return err
	}
	if err := check("Broadcast", mine, []int32{int32(n), int32(10 * (n - 1))}); err != nil {
		return err
	}
	one, _ := rt.AllocFrom(ctx, []int32{int32(rank)})
	all, _ := rt.Alloc[int32](ctx, n)
	if err := nccl.AllGather(c, one, all, s); err != nil {
		return err
	}
	ranks := make([]int32, n)
	for q := range ranks {
		ranks[q] = int32(q)
	}
	if err := check("AllGather", all, ranks); err != nil {
		return err
	}
	if err := nccl.ReduceScatter(c, all, one, nccl.Max, s); err != nil {
		return err
	}
	if err := check("ReduceScatter", one, []int32{int32(rank)}); err != nil {
		return err
	}
	// A ring of Sends and Recvs in a group.
	from, _ := rt.Alloc[int32](ctx, 1)
	err := nccl.Group(func() error {
		if err := nccl.Send(c, one, (rank+1)%n, s); err != nil {
			return err
		}
		return nccl.Recv(c, from, (rank+n-1)%n, s)
	})
	if err != nil {
		return err
	}
	if err := check("Send/Recv", from, []int32{int32((rank + n - 1) % n)}); err != nil {
		return err
	}
	// A split by parity.
	sub, err := c.Split(rank%2, 0, nil)
	if err != nil {
		return err
	}
	val, _ := rt.AllocFrom(ctx, []int32{int32(rank + 1)})
	if err := nccl.AllReduceInPlace(sub, val, nccl.Sum, s); err != nil {
		return err
	}
	vals := make([]int32, n)
	for q := range n {
		for p := q % 2; p < n; p += 2 {
			vals[q] += int32(p + 1)
		}
	}
	if err := check("AllReduce after Split", val, vals[rank:rank+1]); err != nil {
		return err
	}
	if err := sub.Destroy(); err != nil {
		return err
	}
	// A graph, launched twice: the product of vals, then its n-th power.
	g, err := s.Capture(func(s *rt.Stream) error { return nccl.AllReduceInPlace(c, val, nccl.Prod, s) })
	if err != nil {
		return err
	}
	x, err := g.Instantiate()
	if err != nil {
		return err
	}
	for range 2 {
		if err := x.Launch(s); err != nil {
			return err
		}
	}
	p, want := int32(1), int32(1)
	for _, v := range vals {
		p *= v
	}
	for range n {
		want *= p
	}
	if err := check("graph", val, []int32{want}); err != nil {
		return err
	}
	x.Destroy()
	if err := g.Destroy(); err != nil {
		return err
	}
	// Every operation, inside a graph launched twice.
	return everyOpInGraphRank(c, ctx, s)
}
