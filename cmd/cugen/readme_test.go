package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/cmd/cugen/internal/clang"
)

// readmeSteps is the README's "Getting started" section: the files it shows
// (a `path`: line, then a fenced block) and its shell commands, in order.
type readmeStep struct {
	file, text string // a file to write
	cmd        string // or a command
	want       string // the command's output, from its # comment when it is go run
	checkout   bool   // the command is of the "From a checkout" recipe
}

func readmeSteps(t *testing.T) []readmeStep {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(data, []byte("\n## Getting started\n"))
	if start < 0 {
		t.Fatal(`README.md has no "## Getting started" section`)
	}
	section := data[start+1:]
	if end := regexp.MustCompile(`\n##+ `).FindIndex(section[1:]); end != nil {
		section = section[:end[0]+1]
	}
	var steps []readmeStep
	var block []string
	lang, file, prev, para := "", "", "", ""
	inPara := false
	fileLine := regexp.MustCompile("^`([^`]+)`:$")
	sc := bufio.NewScanner(bytes.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case lang == "" && strings.HasPrefix(line, "```"):
			lang, block = strings.TrimPrefix(line, "```"), nil
			if m := fileLine.FindStringSubmatch(prev); m != nil {
				file = m[1]
			}
		case lang != "" && line == "```":
			switch {
			case file != "":
				steps = append(steps, readmeStep{file: file, text: strings.Join(block, "\n") + "\n"})
			case lang == "sh":
				for _, l := range block {
					cmd, comment, _ := strings.Cut(l, "#")
					st := readmeStep{cmd: strings.TrimSpace(cmd), checkout: strings.HasPrefix(para, "**From a checkout")}
					if strings.HasPrefix(st.cmd, "go run") {
						st.want = strings.TrimSpace(comment)
					}
					steps = append(steps, st)
				}
			}
			lang, file = "", ""
		case lang != "":
			block = append(block, line)
		}
		switch {
		case lang != "" || strings.HasPrefix(line, "```"):
		case line == "":
			inPara = false
		case !inPara:
			para, inPara = line, true // the first line of the paragraph before a block
		}
		if line != "" {
			prev = line
		}
	}
	return steps
}

// TestREADMEFreshModule builds a module from the README's "Getting
// started" section alone, as a user's machine would: its commands run in
// order in an empty directory, with the module proxy and checksum database
// on, cugen added from this checkout by the section's "From a checkout"
// recipe (its clone is this checkout), its files written where it says, and
// go run prints what its comment says. go get of the unpublished module is
// run too, and may fail only because the proxy does not have it.
// CUGEN_README_OFFLINE=1 turns the proxy off, for a machine without network
// (dependencies then come from the module cache); without it an unreachable
// proxy fails the test.
func TestREADMEFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go tool; skipped in -short mode")
	}
	if _, err := clang.Find(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the README compiles its kernel with clang, which is not installed")
		}
		t.Skip("the README compiles its kernel with clang; no clang on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	offline := os.Getenv("CUGEN_README_OFFLINE") == "1"
	if offline {
		env = append(env, "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod")
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	steps := readmeSteps(t)
	var ran []string
	for _, st := range steps {
		if st.file != "" {
			path := filepath.Join(dir, filepath.FromSlash(st.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(st.text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		args := strings.Fields(st.cmd)
		if st.checkout && len(args) > 1 && args[0] == "git" && args[1] == "clone" {
			ran = append(ran, st.cmd) // the clone is this checkout
			continue
		}
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "=../cugen", "="+root)
		}
		out, err := run(args...)
		if err != nil && strings.HasPrefix(st.cmd, "go get -tool github.com/cugen/cugen") && !offline && notOnProxy.MatchString(out) {
			t.Logf("%s: cugen is not on the proxy yet (%s); the checkout recipe follows", st.cmd, strings.TrimSpace(out))
			ran = append(ran, st.cmd)
			continue
		}
		if err != nil && st.cmd == "go get -tool github.com/cugen/cugen/cmd/cugen" && offline {
			ran = append(ran, st.cmd) // offline, the proxy is off by request
			continue
		}
		if err != nil && st.cmd == "go mod tidy" && offline && strings.Contains(out, "GOPROXY=off") {
			// Offline, tidy may miss test-only modules of cugen's
			// dependencies (x/tools' tests) that it would record but that
			// nothing builds; -e records what it can.
			t.Logf("go mod tidy offline: %s; again with -e", strings.TrimSpace(out))
			out, err = run("go", "mod", "tidy", "-e")
		}
		if err != nil {
			hint := ""
			if unreachable.MatchString(out) {
				hint = "\n(the module proxy is unreachable: CUGEN_README_OFFLINE=1 runs this test offline, from the module cache)"
			}
			t.Fatalf("%s: %v\n%s%s", st.cmd, err, out, hint)
		}
		if st.want != "" && strings.TrimSpace(out) != st.want {
			t.Errorf("%s printed %q, want %q", st.cmd, out, st.want)
		}
		ran = append(ran, st.cmd)
	}
	if want := []string{"go mod init", "go get -tool", "git clone", "go mod edit -replace", "go mod tidy", "go generate", "go run"}; !inOrder(ran, want) {
		t.Fatalf("the README's commands %q lack %q in order", ran, want)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !bytes.Contains(gomod, []byte("\ntool github.com/cugen/cugen/cmd/cugen\n")) || !bytes.Contains(gomod, []byte("replace github.com/cugen/cugen => "+root)) {
		t.Errorf("go.mod lacks the tool directive or the replace of cugen by the checkout:\n%s", gomod)
	}
	for _, args := range [][]string{{"go", "vet", "./..."}, {"go", "test", "./..."}} {
		if out, err := run(args...); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Logf("ran %q", ran)
}

// notOnProxy matches the go command's report that the proxy has no such
// module (proxy.golang.org answers 404 or 410; some proxies 403 "not
// available"); unreachable, that it could not reach the proxy at all.
var (
	notOnProxy  = regexp.MustCompile(`(404 Not Found|410 Gone|403 Forbidden|not available|no matching versions|unrecognized import path)`)
	unreachable = regexp.MustCompile(`(dial tcp|no such host|i/o timeout|connection refused|TLS handshake timeout|network is unreachable)`)
)

// inOrder says each of want prefixes some element of have, in order.
func inOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && strings.HasPrefix(h, want[i]) {
			i++
		}
	}
	return i == len(want)
}
