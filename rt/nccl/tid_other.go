//go:build !linux

package nccl

// threadID identifies the calling OS thread where the system can tell; on
// other systems every thread is one, and only one goroutine may hold a
// group at a time.
func threadID() int { return 0 }
