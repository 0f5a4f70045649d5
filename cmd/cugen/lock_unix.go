//go:build unix

package main

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on the directory dir (flock), waiting for
// another run's, and returns its release. The kernel releases it when the
// process dies, however it dies; no lock file is left behind.
func lockDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, &os.PathError{Op: "flock", Path: dir, Err: err}
	}
	return func() {
		syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		d.Close()
	}, nil
}
