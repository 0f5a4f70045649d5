package fresh

import (
	"slices"
	"testing"

	"github.com/cugen/cugen/gen/pipeline"
)

// TestCommandWords: a //go:generate line and the command a generated file
// records (pipeline.CommandLine's quoting) split into the same words.
func TestCommandWords(t *testing.T) {
	args := []string{"-src", "k.cu", "-type", "Pair<float>=example.com/m/geom.PairF32", "-cflags", "-DX=1 -O3", "-o", "k_cugen.go", "it's.ptx"}
	recorded, ok := shellWords(pipeline.CommandLine(args)[len("cugen"):])
	if !ok || !slices.Equal(recorded, args) {
		t.Errorf("shellWords(CommandLine) = %q, %v", recorded, ok)
	}
	for _, line := range []string{
		`go tool cugen -src k.cu -type Pair<float>=example.com/m/geom.PairF32 -cflags "-DX=1 -O3" -o k_cugen.go it's.ptx`,
		`go run github.com/cugen/cugen/cmd/cugen -src k.cu -type Pair<float>=example.com/m/geom.PairF32 -cflags "-DX=1 -O3" -o k_cugen.go it's.ptx`,
		`cugen -src k.cu -type Pair<float>=example.com/m/geom.PairF32 -cflags "-DX=1 -O3" -o k_cugen.go it's.ptx`,
	} {
		got, ok := cugenArgs(line)
		if !ok || !slices.Equal(got, args) {
			t.Errorf("cugenArgs(%s) = %q, %v", line, got, ok)
		}
	}
	for _, line := range []string{`nvcc -ptx -o k.ptx k.cu`, `go tool cugen -o $GOFILE k.ptx`, `go tool cugen -cflags "-O3`} {
		if got, ok := cugenArgs(line); ok {
			t.Errorf("cugenArgs(%s) = %q, want none", line, got)
		}
	}
}
