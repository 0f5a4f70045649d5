// Package devtest holds kernels that take NCCL's device communicator
// (ncclDevComm) by value, generated with cugen, for rt/nccl's tests.
package devtest

//go:generate go tool cugen -compiler clang -src devcomm.cu -o devcomm_cugen.go devcomm.cu
