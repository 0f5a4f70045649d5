//go:build cgo

package nccl_test

import "testing"

// Every operation inside a graph per GPU, on a communicator over every GPU
// of this process (testdata/two-gpu.sh runs it on two; with one GPU it
// runs on one rank, where each result is NCCL's one-rank rule).
func TestGPUEveryOpInGraphs(t *testing.T) {
	everyOpInGraphs(t, gpuRanks(t, len(gpuDevices(t))))
}
