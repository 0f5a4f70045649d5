//go:build !linux

package soft

// tid is constant where the thread id is not portably available: the current
// context is then one per process.
func tid() int { return 0 }
