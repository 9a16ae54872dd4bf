package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kptkit/kptkit/pkg/pkgrev"
)

// A change's refs move in process as git's files backend moves them in a
// transaction (refs/files-backend.c), without a git process for each
// change: every ref is locked by creating <ref>.lock beside it with
// O_CREAT|O_EXCL, in name order; its value is read under the lock (the
// loose file, else packed-refs) and checked against the value kptkit read;
// a transaction that deletes refs also holds packed-refs.lock, so that no
// one packs a ref being deleted; the new values go into the lock files,
// which are then renamed into place (not fsynced: core.fsync leaves refs
// out by default), and on any failure every lock is removed. Whatever
// this does not do as git would — a repository whose refs are not loose
// files (reftable), a ref git would log or a hook would see, a symbolic
// ref, a packed ref to delete, a ref in the way of another, a lock someone
// else holds — goes to `git update-ref --stdin` instead, before anything
// is written (errInProcess).

// errInProcess says that a transaction is git's to make.
var errInProcess = errors.New("not in process")

// refTx is a transaction holding its locks: prepared, then committed or
// aborted.
type refTx struct {
	dir     string
	updates []txUpdate
	packed  string // packed-refs.lock when held
}

// txUpdate is a ref of a transaction and its lock.
type txUpdate struct {
	name, old, new string
	lock           string   // the lock file, once created
	f              *os.File // the lock file, open until its value is written
}

// prepareRefs locks and checks the refs of a transaction (new values
// resolved); errInProcess when git must make it, with nothing held.
func (g *Repo) prepareRefs(refs []pkgrev.RefUpdate) (*refTx, error) {
	dir, ok := g.filesBackend()
	if !ok {
		return nil, errInProcess
	}
	tx := &refTx{dir: dir}
	for _, u := range refs {
		tx.updates = append(tx.updates, txUpdate{name: u.Name, old: u.Old, new: u.New})
	}
	slices.SortFunc(tx.updates, func(a, b txUpdate) int { return strings.Compare(a.name, b.name) })
	if err := tx.plain(); err != nil {
		return nil, err
	}
	packed, err := readPackedRefs(dir)
	if err != nil {
		return nil, err
	}
	if err := tx.lock(packed); err != nil {
		tx.abort()
		return nil, err
	}
	return tx, nil
}

// plain refuses (errInProcess) what git does more with than lock and
// write: the same ref twice, a ref inside another of the transaction, a
// ref with a reflog.
func (tx *refTx) plain() error {
	for i, u := range tx.updates {
		for _, v := range tx.updates[:i] {
			if strings.HasPrefix(u.name+"/", v.name+"/") || strings.HasPrefix(v.name+"/", u.name+"/") {
				return errInProcess
			}
		}
		if _, err := os.Lstat(filepath.Join(tx.dir, "logs", filepath.FromSlash(u.name))); !errors.Is(err, os.ErrNotExist) {
			return errInProcess
		}
	}
	return nil
}

// lock takes the transaction's locks in name order, then packed-refs.lock
// when it deletes, and checks each ref's value under them.
func (tx *refTx) lock(packed map[string]string) error {
	deletes := false
	for i := range tx.updates {
		u := &tx.updates[i]
		deletes = deletes || u.new == ""
		if err := tx.lockRef(u); err != nil {
			return err
		}
	}
	if deletes {
		f, err := createLock(filepath.Join(tx.dir, "packed-refs.lock"))
		if err != nil {
			return err
		}
		tx.packed = f.Name()
		if err := f.Close(); err != nil {
			return err
		}
		if packed, err = readPackedRefs(tx.dir); err != nil { // as it is now, under its lock
			return err
		}
	}
	for i := range tx.updates {
		if err := tx.check(&tx.updates[i], packed); err != nil {
			return err
		}
	}
	return nil
}

// lockRef creates a ref's lock (and the folders it goes in).
func (tx *refTx) lockRef(u *txUpdate) error {
	p := filepath.Join(tx.dir, filepath.FromSlash(u.name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return errInProcess // a ref in the way: git says so
	}
	f, err := createLock(p + ".lock")
	if err != nil {
		return err
	}
	u.lock, u.f = p+".lock", f
	return nil
}

// createLock creates a lock file as git does (O_CREAT|O_EXCL) and returns
// it open, for the ref's new value to go in; a lock already there is
// another writer's: errInProcess, for git to wait on it and to say so.
func createLock(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, errInProcess
	}
	holdLock(p)
	return f, nil
}

// check reads a ref's value under its lock and compares it with the value
// kptkit read, in git's words; a creation also checks that no ref is in
// the way (errInProcess: git says which).
func (tx *refTx) check(u *txUpdate, packed map[string]string) error {
	cur, err := readLoose(tx.dir, u.name)
	if err != nil {
		return err
	}
	if u.new == "" && packed[u.name] != "" {
		return errInProcess // deleting a packed ref rewrites packed-refs: git's
	}
	if cur == "" {
		cur = packed[u.name]
	}
	switch {
	case u.old == "" && cur != "":
		return fmt.Errorf("cannot lock ref '%s': reference already exists", u.name)
	case u.old != "" && cur == "":
		return fmt.Errorf("cannot lock ref '%s': reference is missing but expected %s", u.name, u.old)
	case cur != u.old:
		return fmt.Errorf("cannot lock ref '%s': is at %s but expected %s", u.name, cur, u.old)
	case u.old == "" && inTheWay(tx.dir, u.name, packed):
		return errInProcess
	}
	return nil
}

// readLoose returns the value of a loose ref ("" for none);
// errInProcess for one git reads otherwise (a symbolic ref, a folder, a
// link).
func readLoose(dir, name string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 128 {
		return "", errInProcess
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", errInProcess
	}
	v := strings.TrimRight(string(b), "\n")
	if !plumbing.IsHash(v) || strings.ToLower(v) != v {
		return "", errInProcess
	}
	return v, nil
}

// inTheWay reports whether a ref to create would clash with another: a
// ref at one of its folders, or refs below it.
func inTheWay(dir, name string, packed map[string]string) bool {
	for p := range packed {
		if strings.HasPrefix(p, name+"/") || strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
	return err == nil && fi.IsDir()
}

// commit writes the new values into the locks (through the descriptors
// their creation opened) and renames them into place, deletes the refs to
// delete, then lets go of packed-refs.lock; a failure leaves the refs not
// yet moved as they were.
func (tx *refTx) commit() error {
	defer tx.abort()
	for i := range tx.updates {
		u := &tx.updates[i]
		if u.new == "" || u.new == u.old {
			continue
		}
		_, err := u.f.WriteString(u.new + "\n")
		if cerr := u.f.Close(); err == nil {
			err = cerr
		}
		u.f = nil
		if err != nil {
			return fmt.Errorf("cannot write ref '%s': %w", u.name, err)
		}
	}
	for i := range tx.updates {
		u := &tx.updates[i]
		if u.new == "" || u.new == u.old {
			continue
		}
		if err := os.Rename(u.lock, strings.TrimSuffix(u.lock, ".lock")); err != nil {
			return fmt.Errorf("cannot update ref '%s': %w", u.name, err)
		}
		releaseLock(u.lock)
		u.lock = ""
	}
	for i := range tx.updates {
		if u := &tx.updates[i]; u.new == "" {
			if err := tx.delete(u); err != nil {
				return err
			}
		}
	}
	return nil
}

// delete removes a loose ref and the folders it leaves empty, as git
// does, holding its lock.
func (tx *refTx) delete(u *txUpdate) error {
	p := strings.TrimSuffix(u.lock, ".lock")
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot delete ref '%s': %w", u.name, err)
	}
	_ = os.Remove(u.lock)
	releaseLock(u.lock)
	u.lock = ""
	top := filepath.Join(tx.dir, "refs")
	for d := filepath.Dir(p); strings.HasPrefix(d, top+string(filepath.Separator)) && filepath.Dir(d) != top; d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break // not empty
		}
	}
	return nil
}

// abort closes and removes the locks still held.
func (tx *refTx) abort() {
	for i := range tx.updates {
		u := &tx.updates[i]
		if u.f != nil {
			_ = u.f.Close()
			u.f = nil
		}
		if u.lock != "" {
			_ = os.Remove(u.lock)
			releaseLock(u.lock)
			u.lock = ""
		}
	}
	if tx.packed != "" {
		_ = os.Remove(tx.packed)
		releaseLock(tx.packed)
		tx.packed = ""
	}
}
