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
	lang, file, prev := "", "", ""
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
					st := readmeStep{cmd: strings.TrimSpace(cmd)}
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
		if line != "" {
			prev = line
		}
	}
	return steps
}

// TestREADMEFreshModule builds a module from the README's "Getting
// started" section alone: its commands run in order in an empty directory,
// its files are written where it says, and go run prints what its comment
// says. Offline, as CI may be: cugen comes from this checkout (a replace
// directive after go mod init), the module proxy and checksum database are
// off, and other modules come from the module cache.
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
	env := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
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
		out, err := run(strings.Fields(st.cmd)...)
		if err != nil && st.cmd == "go mod tidy" && strings.Contains(out, "GOPROXY=off") {
			// Offline, tidy may miss test-only modules of cugen's
			// dependencies (x/tools' tests) that it would record but that
			// nothing builds; -e records what it can.
			t.Logf("go mod tidy offline: %s; again with -e", strings.TrimSpace(out))
			out, err = run("go", "mod", "tidy", "-e")
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", st.cmd, err, out)
		}
		if st.want != "" && strings.TrimSpace(out) != st.want {
			t.Errorf("%s printed %q, want %q", st.cmd, out, st.want)
		}
		ran = append(ran, st.cmd)
		if strings.HasPrefix(st.cmd, "go mod init") {
			if out, err := run("go", "mod", "edit", "-replace", "github.com/cugen/cugen="+root); err != nil {
				t.Fatalf("go mod edit -replace: %v\n%s", err, out)
			}
		}
	}
	if want := []string{"go mod init", "go get -tool", "go mod tidy", "go generate", "go run"}; !inOrder(ran, want) {
		t.Fatalf("the README's commands %q lack %q in order", ran, want)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !bytes.Contains(gomod, []byte("\ntool github.com/cugen/cugen/cmd/cugen\n")) {
		t.Errorf("go mod tidy dropped the tool directive:\n%s", gomod)
	}
	for _, args := range [][]string{{"go", "vet", "./..."}, {"go", "test", "./..."}} {
		if out, err := run(args...); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Logf("ran %q", ran)
}

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
