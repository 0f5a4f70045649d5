package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The tests run on the GPUs with CUGEN_BACKEND=cuda (or unset, with a GPU
// present) and on rt/soft's devices otherwise ($CUGEN_SOFT_DEVICES, default
// 2), checking every result against a host reference either way. Each
// prints its digest lines, "DIGEST name sha256", on stdout: two-gpu.sh
// compares a GPU run's with rt/soft's on the same machine.

// check runs one of the command's checks on the process's backend.
func check(t *testing.T, fn func(*backend, io.Writer, func(string)) error) {
	b, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, %s", b.drv.Name(), plural(len(b.devs), "device"))
	note := func(s string) {
		t.Log(s)
		fmt.Println("NOTE:", s)
	}
	if err := fn(b, os.Stdout, note); err != nil {
		t.Fatal(err)
	}
}

func TestOneLibrary(t *testing.T) { check(t, oneLibrary) }
func TestPeers(t *testing.T)      { check(t, peers) }
func TestGraphs(t *testing.T)     { check(t, graphs) }

// The command prints every check's lines and the bandwidth line.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, re := range []string{`(?m)^ONE-LOAD: \w+: 1 library load`, `(?m)^DIGEST graph/mix/dev0\.primary [0-9a-f]{64}$`,
		`(?m)^DIGEST peer/source-stream [0-9a-f]{64}$`, `(?m)^PEER-BW: bytes 67108864 GB/s [0-9.]+ `} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("no line matching %s in:\n%s", re, s)
		}
	}
	if strings.Contains(s, "DIGEST peer/kernel-reads-device1") != (countDevices(t) >= 2) {
		t.Errorf("peer kernels ran (or not) against the device count:\n%s", s)
	}
}

func countDevices(t *testing.T) int {
	b, err := open()
	if err != nil {
		t.Fatal(err)
	}
	return len(b.devs)
}

// BenchmarkPeerCopy copies $CUGEN_PEER_BYTES (default 256 MiB) from device
// 1 to device 0 (with one device, between two of its contexts) b.N times on
// device 0's stream, and prints "PEER-BW: bytes … GB/s …" (two-gpu.sh sets
// the count with -test.benchtime and compares the figure with CUDA's own).
func BenchmarkPeerCopy(bm *testing.B) {
	b, err := open()
	if err != nil {
		bm.Fatal(err)
	}
	size := 256 << 20
	if v := os.Getenv("CUGEN_PEER_BYTES"); v != "" {
		if _, err := fmt.Sscan(v, &size); err != nil || size <= 0 {
			bm.Fatalf("CUGEN_PEER_BYTES=%q: want a number of bytes", v)
		}
	}
	pc, err := newPeerCopy(b, size)
	if err != nil {
		bm.Fatal(err)
	}
	defer pc.close()
	if err := pc.copies(3); err != nil {
		bm.Fatal(err)
	}
	bm.SetBytes(int64(size))
	bm.ResetTimer()
	t0 := time.Now()
	if err := pc.copies(bm.N); err != nil {
		bm.Fatal(err)
	}
	d := time.Since(t0)
	bm.StopTimer()
	if err := pc.check(); err != nil {
		bm.Fatal(err)
	}
	if bm.N >= 10 {
		// On a line of its own: the testing package has printed the
		// benchmark's name, and prints its figures after this.
		fmt.Printf("\n%s\n", pc.line(bm.N, d))
	}
}
