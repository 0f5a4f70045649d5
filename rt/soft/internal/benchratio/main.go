// Command benchratio tabulates rt/soft's BenchmarkClass output: per kernel
// class the median cpu-ns/op of the soft launch and of the plain-Go loop,
// and their quotient. Given several files (one per test binary, from one
// interleaved run: rt/soft/testdata/speed.sh), it prints one ratio column
// per file and the speedup of the last over the first. Gi/s is soft's
// thread-instructions per CPU-second, in billions.
//
// With -goals (class=ratio pairs; * for every other class; by default
// issue 27's: matmul256 within 3× of plain Go, every other class 10×) it
// adds, for the last file, the goal and the rate soft would need to meet
// it executing the same thread-instructions: Gi/s × (soft/go) / goal. The
// gap between that and Gi/s says whether a class can reach its goal by
// running instructions faster or only by running fewer of them.
//
//	go run ./rt/soft/internal/benchratio [-goals matmul256=3,*=10] before.txt after.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// samples maps class → "soft"/"go" → cpu-ns/op of each round, and
// class → "rate" → soft's Gthread-instr/cpu-s.
type samples map[string]map[string][]float64

func main() {
	goalFlag := flag.String("goals", "matmul256=3,*=10", "soft/go goal per class (class=ratio,…; * for the rest; empty: none)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchratio [-goals class=ratio,...] bench-output.txt...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	goals, err := parseGoals(*goalFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(2)
	}
	files := flag.Args()
	var all []samples
	var order []string
	seen := map[string]bool{}
	for _, f := range files {
		s, names, err := read(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchratio:", err)
			os.Exit(1)
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				order = append(order, n)
			}
		}
		all = append(all, s)
	}
	fmt.Printf("%-12s", "class")
	for _, f := range files {
		fmt.Printf(" | %34s", trim(strings.TrimSuffix(filepath.Base(f), ".txt"), 34))
	}
	if len(all) > 1 {
		fmt.Printf(" | %8s", "speedup")
	}
	if goals != nil {
		fmt.Printf(" | %5s %10s", "goal", "need Gi/s")
	}
	fmt.Println()
	fmt.Printf("%-12s", "")
	for range all {
		fmt.Printf(" | %9s %9s %8s %5s", "soft ms", "go ms", "soft/go", "Gi/s")
	}
	if len(all) > 1 {
		fmt.Printf(" | %8s", "")
	}
	if goals != nil {
		fmt.Printf(" | %5s %10s", "", "")
	}
	fmt.Println()
	for _, c := range order {
		fmt.Printf("%-12s", c)
		var first, last float64
		for i, s := range all {
			sm, gm := median(s[c]["soft"]), median(s[c]["go"])
			fmt.Printf(" | %9.3f %9.3f %7.1f× %5.2f", sm/1e6, gm/1e6, sm/gm, median(s[c]["rate"]))
			if i == 0 {
				first = sm
			}
			last = sm
		}
		if len(all) > 1 {
			fmt.Printf(" | %7.2f×", first/last)
		}
		if g, ok := goals.of(c); ok {
			s := all[len(all)-1][c]
			fmt.Printf(" | %4.0f× %10.2f", g, needRate(median(s["rate"]), median(s["soft"]), median(s["go"]), g))
		}
		fmt.Println()
	}
}

// goalSet maps a class (or "*") to its soft/go goal.
type goalSet map[string]float64

func (g goalSet) of(class string) (float64, bool) {
	if v, ok := g[class]; ok {
		return v, true
	}
	v, ok := g["*"]
	return v, ok
}

func parseGoals(s string) (goalSet, error) {
	if s == "" {
		return nil, nil
	}
	g := goalSet{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		r, err := strconv.ParseFloat(v, 64)
		if !ok || k == "" || err != nil || r <= 0 {
			return nil, fmt.Errorf("-goals: %q is not class=ratio with a ratio above 0", kv)
		}
		g[k] = r
	}
	return g, nil
}

// needRate is the thread-instructions per CPU-second (in the unit of rate)
// at which soft would take goal times the Go time, executing the
// instructions it executes now at rate in softNs: rate·softNs/(goal·goNs).
func needRate(rate, softNs, goNs, goal float64) float64 {
	if goNs <= 0 || goal <= 0 {
		return 0
	}
	return rate * softNs / (goal * goNs)
}

func read(name string) (samples, []string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	s := samples{}
	var order []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || !strings.HasPrefix(fields[0], "BenchmarkClass/") {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(fields[0], "BenchmarkClass/"), "/")
		if len(parts) != 2 {
			continue
		}
		class, kind := parts[0], parts[1]
		if i := strings.LastIndexByte(kind, '-'); i > 0 {
			kind = kind[:i]
		}
		for i := 1; i+1 < len(fields); i++ {
			key := kind
			switch fields[i+1] {
			case "cpu-ns/op":
			case "Gthread-instr/cpu-s":
				key = "rate"
			default:
				continue
			}
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			if s[class] == nil {
				s[class] = map[string][]float64{}
				order = append(order, class)
			}
			s[class][key] = append(s[class][key], v)
		}
	}
	return s, order, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n+1:]
}
