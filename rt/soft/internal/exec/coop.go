// The grid-sync workspace of cooperative launches. cooperative_groups'
// grid.sync() (this_grid().sync(), cg::sync(grid)) counts the CTAs that
// arrived in a word of global memory whose address the driver passes to a
// cooperative launch in %envreg1 (high half) and %envreg2 (low half); the
// code traps when they are zero, as they are for other launches. Soft
// gives every cooperative launch a zeroed 64-byte workspace there (and runs
// each of its CTAs on a goroutine of its own, so that they can wait for
// each other).

package exec

// gridSyncWorkspace allocates the launch's workspace.
func (l *Launch) gridSyncWorkspace() error {
	a, err := l.Host.Alloc("cuLaunchCooperativeKernel", 64, "grid-sync workspace")
	if err != nil {
		return err
	}
	l.gridSync, l.gridSyncMem = a.Base, a
	return nil
}

func (l *Launch) freeGridSync() {
	if l.gridSyncMem == nil {
		return
	}
	l.Host.Free(l.gridSyncMem)
	l.gridSync, l.gridSyncMem = 0, nil
}
