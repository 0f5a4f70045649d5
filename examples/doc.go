// Package examples holds cugen's example packages (one directory each; see
// README.md) and the check that their generated code is fresh: go test
// ./examples reruns every example's //go:generate lines in a scratch copy
// and fails if anything committed differs.
package examples
