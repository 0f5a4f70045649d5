package exec

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cugen/cugen/parse/ptx"
	"github.com/cugen/cugen/rt/soft/internal/softtest"
)

var mmaBundle = flag.String("mma.bundle", "", "write the tensor-core recording kernels and inputs to this directory (for testdata/mma/record.py)")

type bundleEntry struct {
	Name  string `json:"name"`
	File  string `json:"file"`
	Grid  int    `json:"grid"`
	Block int    `json:"block"`
	Out   int    `json:"out"` // bytes per CTA
}

// TestMMABundle writes the recording bundle when -mma.bundle is given;
// otherwise it checks that every recording kernel parses.
func TestMMABundle(t *testing.T) {
	forms := allRecForms()
	if *mmaBundle == "" {
		for _, f := range softtest.Strided(forms, softtest.Sample(4)) { // (all but under -race)
			if _, err := ptx.Parse(f.Name+".ptx", []byte(f.ptx)); err != nil {
				t.Errorf("%s: %v", f.Name, err)
			}
		}
		return
	}
	dir := *mmaBundle
	if err := os.MkdirAll(filepath.Join(dir, "k"), 0o755); err != nil {
		t.Fatal(err)
	}
	var man []bundleEntry
	total := 0
	for i, f := range forms {
		file := fmt.Sprintf("k/%03d", i)
		if err := os.WriteFile(filepath.Join(dir, file+".ptx"), []byte(f.ptx), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file+".in"), f.In, 0o644); err != nil {
			t.Fatal(err)
		}
		total += len(f.In) + f.Grid*f.OutSize
		man = append(man, bundleEntry{f.Name, file, f.Grid, f.Block, f.OutSize})
	}
	b, _ := json.MarshalIndent(man, "", " ")
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d forms, %d bytes of inputs and outputs", len(forms), total)
}
