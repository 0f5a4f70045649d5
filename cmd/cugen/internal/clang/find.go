package clang

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MinVersion is the oldest clang the route works with: the oldest Debian
// bookworm ships, which compiles everything cugen's headers offer for the
// targets it knows (sm_90 needs clang 16, sm_90a 17, sm_100 and sm_120 a
// newer one; clang names the target it does not know, and hint adds what to
// do). .ci/run tests the oldest and the newest Debian ships (13 and 22);
// README.md's table lists each version tested and its targets.
const MinVersion = 13

// A Compiler is a clang binary: its path, major version and resource
// directory (where its own headers are, which line information names as
// clang/...).
type Compiler struct {
	Path        string
	Version     int
	ResourceDir string
}

func (c Compiler) String() string { return fmt.Sprintf("%s (clang %d)", c.Path, c.Version) }

// Find returns the clang to run: cc when it is given (a name on PATH or a
// path), else clang on PATH, else the newest clang-N (Debian and Ubuntu
// install clang-16, clang-19, ... without a plain clang). A clang older
// than MinVersion is refused, naming what was found and what to install; a
// plain clang that is too old gives way to a clang-N that is not.
func Find(cc string) (Compiler, error) {
	var cands []string
	if cc != "" {
		cands = []string{cc}
	} else {
		cands = Candidates()
	}
	if len(cands) == 0 {
		return Compiler{}, fmt.Errorf("no clang on PATH (Debian and Ubuntu: apt install clang-%d; then -cc clang-%d, or put clang on PATH)", recommended, recommended)
	}
	var tooOld []string
	for _, name := range cands {
		c, err := probe(name)
		if err != nil {
			if cc != "" {
				return Compiler{}, fmt.Errorf("-cc %s: %v", cc, err)
			}
			continue
		}
		if c.Version < MinVersion {
			tooOld = append(tooOld, c.String())
			continue
		}
		return c, nil
	}
	if len(tooOld) == 0 {
		return Compiler{}, fmt.Errorf("no working clang on PATH (tried %s)", strings.Join(cands, ", "))
	}
	return Compiler{}, fmt.Errorf("%s: cugen's clang route needs clang %d or newer; Debian and Ubuntu: apt install clang-%d, then -cc clang-%d",
		strings.Join(tooOld, ", "), MinVersion, recommended, recommended)
}

// recommended is the clang the messages suggest installing: one Debian
// bookworm and Ubuntu 24.04 have, that compiles for every target up to
// sm_90a.
const recommended = 19

// Candidates are the clangs Find tries without -cc, in order: clang on PATH,
// then each clang-N on PATH, newest first.
func Candidates() []string {
	var out []string
	if p, err := exec.LookPath("clang"); err == nil {
		out = append(out, p)
	}
	type numbered struct {
		path string
		v    int
	}
	var ns []numbered
	seen := map[int]bool{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		matches, _ := filepath.Glob(filepath.Join(dir, "clang-[0-9]*"))
		for _, m := range matches {
			v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "clang-"))
			if err != nil || seen[v] {
				continue // clang-format-20 and the like; a version found earlier on PATH
			}
			if p, err := exec.LookPath(m); err == nil {
				seen[v] = true
				ns = append(ns, numbered{p, v})
			}
		}
	}
	slices.SortStableFunc(ns, func(a, b numbered) int { return b.v - a.v })
	for _, n := range ns {
		out = append(out, n.path)
	}
	return out
}

var versionLine = regexp.MustCompile(`clang version (\d+)\.`)

// probe runs name --version and -print-resource-dir.
func probe(name string) (Compiler, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return Compiler{}, err
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return Compiler{}, fmt.Errorf("%s --version: %v", path, err)
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		first, _, _ := strings.Cut(string(out), "\n")
		return Compiler{}, fmt.Errorf("%s is not clang (its --version says %q)", path, first)
	}
	c := Compiler{Path: path}
	c.Version, _ = strconv.Atoi(string(m[1]))
	if rd, err := exec.Command(path, "-print-resource-dir").Output(); err == nil {
		c.ResourceDir = filepath.Clean(strings.TrimSpace(string(rd)))
	}
	return c, nil
}
