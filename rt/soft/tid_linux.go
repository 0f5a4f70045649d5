//go:build linux

package soft

import "syscall"

// tid identifies the calling OS thread: CUDA's current context is per
// thread, and a Go program that relies on it locks its goroutine to one.
func tid() int { return syscall.Gettid() }
