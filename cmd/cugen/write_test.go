package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cugen/cugen/parse/hostile"
)

// The tests of writeOutputs: the Go file and the image change together or
// not at all, whatever fails or kills the run, and concurrent runs on one
// output take turns.

// TestMain lets a test run cugen as a child process (CUGEN_TEST_CHILD=1),
// which kills itself with SIGKILL at the step CUGEN_TEST_KILL names
// ("write:NAME", "journal:NAME", "rename:NAME").
func TestMain(m *testing.M) {
	if os.Getenv("CUGEN_TEST_CHILD") == "1" {
		if at := os.Getenv("CUGEN_TEST_KILL"); at != "" {
			writeHook = func(step, path string) error {
				if step+":"+filepath.Base(path) == at {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					time.Sleep(time.Minute)
				}
				return nil
			}
		}
		os.Exit(run(strings.Fields(os.Getenv("CUGEN_TEST_ARGS")), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// pair is one generation's Go file and image, as bytes.
type pair struct{ goFile, image []byte }

// writeScene is an output directory and two inputs of the same name whose
// generated pairs differ in both files.
type writeScene struct {
	dir, in, out, img string
	a, b              []byte // the inputs' contents
	pa, pb            pair   // what each generates
}

func newScene(t *testing.T, bSize int) *writeScene {
	t.Helper()
	root := t.TempDir()
	s := &writeScene{
		dir: filepath.Join(root, "out"),
		in:  filepath.Join(root, "in", "k.ptx"),
		a:   []byte(hostile.SmallPTX),
		b:   hostile.ParamPTX([]int{8, 4}),
	}
	if bSize > 0 {
		s.b = append(s.b, "//"+strings.Repeat("x", bSize)+"\n"...)
	}
	s.out, s.img = filepath.Join(s.dir, "k_cugen.go"), filepath.Join(s.dir, "k.ptx")
	os.MkdirAll(s.dir, 0o755)
	os.MkdirAll(filepath.Dir(s.in), 0o755)
	// The header names the command line, -o included: generate both
	// pairs where the tests will.
	s.pa = s.generateInto(t, s.a)
	s.pb = s.generateInto(t, s.b)
	if bytes.Equal(s.pa.goFile, s.pb.goFile) || bytes.Equal(s.pa.image, s.pb.image) {
		t.Fatal("the two generations do not differ")
	}
	return s
}

// generateInto runs cugen on input into s.dir and returns what it wrote.
func (s *writeScene) generateInto(t *testing.T, input []byte) pair {
	t.Helper()
	if code, stderr := s.generate(t, input); code != 0 {
		t.Fatalf("cugen: %s", stderr)
	}
	return pair{readOrFail(t, s.out), readOrFail(t, s.img)}
}

func readOrFail(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generate runs cugen on input into s.dir in this process.
func (s *writeScene) generate(t *testing.T, input []byte) (int, string) {
	t.Helper()
	if err := os.WriteFile(s.in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "-pkg", "k", "-o", s.out, s.in)
	return code, stderr
}

// state says which pair s.dir holds: "a", "b" or "mixed", with "+journal"
// when an interrupted commit is pending; and lists cugen's temporary files.
func (s *writeScene) state(t *testing.T) (string, []string) {
	t.Helper()
	var temps []string
	journal := ""
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") {
			temps = append(temps, n)
			if strings.HasSuffix(n, journalSuffix) {
				journal = "+journal"
			}
		}
	}
	g, _ := os.ReadFile(s.out)
	i, _ := os.ReadFile(s.img)
	switch {
	case bytes.Equal(g, s.pa.goFile) && bytes.Equal(i, s.pa.image):
		return "a" + journal, temps
	case bytes.Equal(g, s.pb.goFile) && bytes.Equal(i, s.pb.image):
		return "b" + journal, temps
	}
	return "mixed" + journal, temps
}

func (s *writeScene) want(t *testing.T, when, want string) {
	t.Helper()
	if got, temps := s.state(t); got != want || len(temps) > 0 {
		t.Errorf("%s: the directory holds %s with %v, want %s and no temporary files", when, got, temps, want)
	}
}

// A failure at any step of a run, the disk full say, leaves the old pair
// as it was and no temporary file, and says which file it was writing.
func TestWriteFailureKeepsOldPair(t *testing.T) {
	s := newScene(t, 0)
	for _, at := range []string{"write:k.ptx", "write:k_cugen.go", "journal:k_cugen.go", "rename:k.ptx", "rename:k_cugen.go"} {
		s.generate(t, s.a)
		s.want(t, "before "+at, "a")
		writeHook = func(step, path string) error {
			if step+":"+filepath.Base(path) == at {
				return syscall.ENOSPC
			}
			return nil
		}
		code, stderr := s.generate(t, s.b)
		writeHook = nil
		stderr = withoutWarnings(stderr)
		name := strings.SplitN(at, ":", 2)[1]
		if code != 1 || stderr != "cugen: writing "+filepath.Join(s.dir, name)+": no space left on device\n" {
			t.Errorf("failure at %s: exit %d, %q", at, code, stderr)
		}
		s.want(t, "after a failure at "+at, "a")
	}
	// A run after them all writes the new pair, and removes what older
	// cugen runs killed while writing left (os.CreateTemp's names).
	os.WriteFile(filepath.Join(s.dir, ".k.ptx.tmp1234567"), s.b[:100], 0o600)
	os.WriteFile(filepath.Join(s.dir, ".k_cugen.go.tmp89"), s.b[:100], 0o600)
	if code, stderr := s.generate(t, s.b); code != 0 {
		t.Fatal(stderr)
	}
	s.want(t, "after a good run", "b")
}

// runChild runs cugen in a child process on s.b, killed with SIGKILL at
// the step killAt names or, when killAt is "", after delay (unless it is
// negative); it returns how long the child ran.
func (s *writeScene) runChild(t *testing.T, killAt string, delay time.Duration) time.Duration {
	t.Helper()
	if err := os.WriteFile(s.in, s.b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CUGEN_TEST_CHILD=1", "CUGEN_TEST_KILL="+killAt,
		"CUGEN_TEST_ARGS=-pkg k -o "+s.out+" "+s.in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if killAt == "" && delay >= 0 {
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if killAt != "" && (!errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL) {
		t.Fatalf("child at %s: %v, %s", killAt, err, stderr.String())
	}
	return time.Since(start)
}

// cugen killed with SIGKILL at each step of a write: before the journal is
// written the old pair stays (the next run removes the temporary files);
// after it, the next run completes the new pair before anything else. Only
// a kill between the two renames leaves the new image beside the old Go
// file, until then.
func TestWriteKilled(t *testing.T) {
	s := newScene(t, 0)
	for _, c := range []struct{ at, after, recovered string }{
		{"write:k.ptx", "a", "a"},
		{"write:k_cugen.go", "a", "a"}, // the image's temporary file is left
		{"journal:k_cugen.go", "a", "a"},
		{"rename:k.ptx", "a+journal", "b"},
		{"rename:k_cugen.go", "mixed+journal", "b"},
	} {
		s.generate(t, s.a)
		s.want(t, "before the kill at "+c.at, "a")
		s.runChild(t, c.at, 0)
		got, temps := s.state(t)
		if got != c.after || c.at == "write:k_cugen.go" && len(temps) == 0 {
			t.Errorf("killed at %s: the directory holds %s with %v, want %s", c.at, got, temps, c.after)
		}
		// What the next run does first: recover the directory.
		unlock, _ := lockDir(s.dir)
		err := recoverDir(s.dir)
		unlock()
		if err != nil {
			t.Fatal(err)
		}
		s.want(t, "after recovering a kill at "+c.at, c.recovered)
		// And a whole run after a kill leaves its own pair.
		s.generate(t, s.a)
		s.runChild(t, c.at, 0)
		if code, stderr := s.generate(t, s.a); code != 0 {
			t.Fatalf("run after a kill at %s: %s", c.at, stderr)
		}
		s.want(t, "after the run following a kill at "+c.at, "a")
	}
	// Killed at moments spread over a run that writes a 16 MB image.
	big := newScene(t, 16<<20)
	whole := time.Hour
	for range 3 {
		big.generate(t, big.a)
		whole = min(whole, big.runChild(t, "", -1))
	}
	for i, f := range []float64{0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98} {
		big.generate(t, big.a)
		d := time.Duration(f * float64(whole))
		big.runChild(t, "", d)
		got, temps := big.state(t)
		t.Logf("killed after %v of %v: %s, %d temporary files", d, whole, got, len(temps))
		if strings.HasPrefix(got, "mixed") && !strings.HasSuffix(got, "+journal") {
			t.Errorf("kill %d after %v: a mixed pair without a journal", i, d)
		}
		if code, stderr := big.generate(t, big.a); code != 0 {
			t.Fatal(stderr)
		}
		big.want(t, fmt.Sprintf("the run after kill %d (%s)", i, got), "a")
	}
}

// Concurrent runs on one output, on different inputs, take turns: the
// directory always ends with one run's pair, never a mix.
func TestWriteConcurrentRuns(t *testing.T) {
	s := newScene(t, 1<<20)
	// Both inputs must give the image the same name: run each from a
	// directory of its own holding k.ptx.
	da, db := filepath.Join(filepath.Dir(s.in), "a"), filepath.Join(filepath.Dir(s.in), "b")
	os.MkdirAll(da, 0o755)
	os.MkdirAll(db, 0o755)
	os.WriteFile(filepath.Join(da, "k.ptx"), s.a, 0o644)
	os.WriteFile(filepath.Join(db, "k.ptx"), s.b, 0o644)
	// The header names the input: the pairs to expect are these runs'.
	for _, c := range []struct {
		in string
		p  *pair
	}{{filepath.Join(da, "k.ptx"), &s.pa}, {filepath.Join(db, "k.ptx"), &s.pb}} {
		if code, _, stderr := runCLI(t, "-pkg", "k", "-o", s.out, c.in); code != 0 {
			t.Fatal(stderr)
		}
		*c.p = pair{readOrFail(t, s.out), readOrFail(t, s.img)}
	}
	for round := range 30 {
		var wg sync.WaitGroup
		errs := make([]string, 4)
		for i := range 4 {
			in := filepath.Join(da, "k.ptx")
			if i%2 == 1 {
				in = filepath.Join(db, "k.ptx")
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "CUGEN_TEST_CHILD=1", "CUGEN_TEST_ARGS=-pkg k -o "+s.out+" "+in)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Sprintf("%v: %s", err, out)
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatalf("round %d: %s", round, e)
			}
		}
		if got, temps := s.state(t); (got != "a" && got != "b") || len(temps) > 0 {
			t.Fatalf("round %d: the directory holds %s with %v", round, got, temps)
		}
	}
}

// withoutWarnings is cugen's stderr without its warning lines.
func withoutWarnings(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, "cugen: warning: ") {
			b.WriteString(l)
		}
	}
	return b.String()
}
