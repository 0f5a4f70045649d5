package nccl

import "syscall"

// threadID identifies the calling OS thread, which a group belongs to.
func threadID() int { return syscall.Gettid() }
