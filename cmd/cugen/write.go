package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cugen/cugen/gen/pipeline"
)

// The generated Go file and the images it embeds change together. A run
//
//  1. locks the output directory (flock), so that concurrent runs writing
//     there take turns and none mixes its files with another's; the lock
//     dies with its process;
//  2. finishes what an interrupted run left (recover);
//  3. writes every file that changes to a temporary file beside it, named
//     .cugen-NAME.tmp so that a later run knows it, and fsyncs it;
//  4. writes and fsyncs a journal, .cugen-GOFILE.commit, listing the
//     renames to come: the point after which the new files win;
//  5. renames the images, then the Go file, fsyncs the directory and
//     removes the journal.
//
// A failure before step 4 (a full disk, say) removes the temporary files and
// leaves the old files as they were. A run killed before step 4 leaves
// temporary files that the next run removes; one killed during step 5
// leaves the journal, and the next run in the directory completes the
// renames before anything else. The only moment the new image can be seen
// beside the old Go file is between two renames of one run; rt checks the
// kernels' names and layouts at load, which reports such a pair.

const (
	tmpPrefix     = ".cugen-"
	tmpSuffix     = ".tmp"
	backupSuffix  = ".old"
	journalSuffix = ".commit"
)

// writeHook, when set (by tests), runs before each step of writeOutputs
// that can fail: "write" and "rename" of a file, "journal"; an error it
// returns is that step's.
var writeHook func(step, path string) error

func hook(step, path string) error {
	if writeHook == nil {
		return nil
	}
	return writeHook(step, path)
}

// writeOutputs writes the Go file and its images as one change (see the
// comment above). An image whose bytes are already on disk is not rewritten:
// it is often the input itself. Errors name the file, never a temporary one.
func writeOutputs(goFile pipeline.File, images []pipeline.File) error {
	dir := filepath.Dir(goFile.Name)
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %v", goFile.Name, cause(err))
	}
	defer unlock()
	if err := recoverDir(dir); err != nil {
		return err
	}
	journal := filepath.Join(dir, tmpPrefix+filepath.Base(goFile.Name)+journalSuffix)

	var changed []pipeline.File
	for _, f := range slices.Concat(images, []pipeline.File{goFile}) {
		if filepath.Dir(f.Name) != dir {
			// One lock and one journal cover one directory.
			return fmt.Errorf("writing %s: not in the directory of %s", f.Name, goFile.Name)
		}
		removeLegacyTemps(f.Name)
		if old, err := os.ReadFile(f.Name); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		changed = append(changed, f)
	}
	if len(changed) == 0 {
		return nil
	}
	var temps []string
	removeTemps := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, f := range changed {
		if fi, err := os.Lstat(f.Name); err == nil && fi.IsDir() {
			removeTemps()
			return fmt.Errorf("writing %s: is a directory", f.Name)
		}
		tmp := tempName(f.Name)
		temps = append(temps, tmp)
		if err := writeSynced(tmp, f.Data, "write", f.Name); err != nil {
			removeTemps()
			return fmt.Errorf("writing %s: %v", f.Name, cause(err))
		}
	}

	// Hard links keep the old files, so that a rename that fails can be
	// undone; a file system without links only loses that undo.
	existed := make([]bool, len(changed))
	for i, f := range changed {
		_, err := os.Lstat(f.Name)
		existed[i] = err == nil
		os.Link(f.Name, backupName(f.Name))
	}
	defer func() {
		for _, f := range changed {
			os.Remove(backupName(f.Name))
		}
	}()

	// The journal makes the change durable as a whole: from here on, the
	// new files win, whoever finishes the renames.
	var plan strings.Builder
	for i, f := range changed {
		fmt.Fprintf(&plan, "%s\t%s\n", filepath.Base(temps[i]), filepath.Base(f.Name))
	}
	if err := writeSynced(journal, []byte(plan.String()), "journal", goFile.Name); err != nil {
		os.Remove(journal)
		removeTemps()
		return fmt.Errorf("writing %s: %v", goFile.Name, cause(err))
	}
	syncDir(dir)
	if err := commit(dir, journal); err != nil {
		// Undo the renames done: the old files come back from their
		// links (a file that did not exist goes), the rest are dropped.
		for i, f := range changed {
			if _, terr := os.Lstat(temps[i]); terr == nil {
				os.Remove(temps[i])
			} else if !existed[i] {
				os.Remove(f.Name)
			} else {
				os.Rename(backupName(f.Name), f.Name)
			}
		}
		os.Remove(journal)
		syncDir(dir)
		return err
	}
	return nil
}

// backupName is the link that keeps the old path while it is replaced.
func backupName(path string) string {
	return filepath.Join(filepath.Dir(path), tmpPrefix+filepath.Base(path)+backupSuffix)
}

// tempName is the temporary file a new version of path is written to.
func tempName(path string) string {
	return filepath.Join(filepath.Dir(path), tmpPrefix+filepath.Base(path)+tmpSuffix)
}

// writeSynced creates path with data and fsyncs it.
func writeSynced(path string, data []byte, step, name string) error {
	if err := hook(step, name); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// commit performs the renames a journal lists, in order, then removes it.
// A temporary file already renamed (by an earlier attempt) is skipped.
func commit(dir, journal string) error {
	plan, err := os.ReadFile(journal)
	if err != nil {
		return fmt.Errorf("reading %s: %v", journal, cause(err))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(plan)), "\n") {
		tmp, target, ok := strings.Cut(line, "\t")
		if !ok || strings.ContainsAny(tmp+target, "/\\") || !strings.HasPrefix(tmp, tmpPrefix) {
			return fmt.Errorf("%s: not a cugen journal; remove it", journal)
		}
		tmp, target = filepath.Join(dir, tmp), filepath.Join(dir, target)
		if _, err := os.Lstat(tmp); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		err := hook("rename", target)
		if err == nil {
			err = os.Rename(tmp, target)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %v", target, cause(err))
		}
	}
	syncDir(dir)
	if err := os.Remove(journal); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %v", journal, cause(err))
	}
	syncDir(dir)
	return nil
}

// recoverDir finishes the commits that interrupted runs left in dir (their
// journals) and removes the temporary files of runs killed before they
// committed. The caller holds dir's lock, so no other run is writing there.
func recoverDir(dir string) error {
	journals, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*"+journalSuffix))
	for _, j := range journals {
		if err := commit(dir, j); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s: %v", dir, cause(err))
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, tmpPrefix) && (strings.HasSuffix(n, tmpSuffix) || strings.HasSuffix(n, backupSuffix)) {
			os.Remove(filepath.Join(dir, n))
		}
	}
	return nil
}

// removeLegacyTemps removes the temporary files that cugen before the
// journal left beside path when it was killed: .NAME.tmpDIGITS
// (os.CreateTemp's names).
func removeLegacyTemps(path string) {
	prefix := "." + filepath.Base(path) + ".tmp"
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), prefix+"*"))
	for _, m := range matches {
		digits := strings.TrimPrefix(filepath.Base(m), prefix)
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			os.Remove(m)
		}
	}
}

// syncDir makes the renames in dir durable. Not every system can fsync a
// directory; the renames are then as durable as the system makes them.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
