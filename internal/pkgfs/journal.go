package pkgfs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/kptkit/kptkit/pkg/kptpkg"
)

// journalName is a write's journal in its folder; journalHeader its first
// line.
const (
	journalName   = "journal"
	journalHeader = "kptkit journal 1"
)

// run stages, journals, applies and commits the write in its folder dir
// (relative to the root, made here). On an error it undoes what it did;
// only when that fails too is the journal left for the next run.
func (t *tx) run(dir string) error {
	if t.direct != "" {
		return t.runDirect(dir)
	}
	t.dir = dir
	if err := t.root.Mkdir(dir, 0o700); err != nil {
		return err
	}
	if err := t.stageAll(); err != nil {
		_ = t.root.RemoveAll(dir)
		return err
	}
	for i := range len(t.ops) + 1 {
		err := t.hook(i)
		if errors.Is(err, ErrStop) {
			return err
		}
		if err == nil && i < len(t.ops) {
			err = t.do(t.ops[i])
		}
		if err == nil && i == len(t.ops) {
			err = t.root.Remove(path.Join(dir, journalName)) // the commit
		}
		if err != nil {
			if uerr := t.undo(t.ops[:i]); uerr != nil {
				return fmt.Errorf("%w (and undoing the write failed: %v; the next run undoes the rest from %s)", err, uerr, dir)
			}
			_ = t.root.RemoveAll(dir)
			return err
		}
	}
	_ = t.root.RemoveAll(dir)
	return nil
}

// hook calls the test hook before a step (or, at len(ops), the commit).
func (t *tx) hook(step int) error {
	if h := applyHook.Load(); h != nil {
		p := ""
		if step < len(t.ops) {
			p = t.ops[step].path
		}
		return (*h)(step, p)
	}
	return nil
}

// stageAll writes the new contents into the write's folder, then the
// journal (beside its place first, then renamed in: a journal is whole or
// absent).
func (t *tx) stageAll() error {
	for _, s := range t.stage {
		if err := t.stageFile(s); err != nil {
			return fmt.Errorf("cannot write %s: %w", s.name, unwrapPath(err))
		}
	}
	if t.tree != nil {
		tree := path.Join(t.dir, treeSlot)
		err := t.root.Mkdir(tree, 0o755)
		if err == nil {
			err = writeAll(t.root, tree, t.tree)
		}
		if err != nil {
			return fmt.Errorf("cannot write the package: %w", unwrapPath(err))
		}
	}
	tmp := path.Join(t.dir, journalName+".new")
	if err := t.root.WriteFile(tmp, encodeJournal(t.ops), 0o644); err != nil {
		return err
	}
	return t.root.Rename(tmp, path.Join(t.dir, journalName))
}

func (t *tx) stageFile(s staged) error {
	f, err := t.root.OpenFile(path.Join(t.dir, s.slot), os.O_WRONLY|os.O_CREATE|os.O_EXCL, s.mode)
	if err != nil {
		return err
	}
	_, err = f.Write(s.data)
	if err == nil && s.chmod {
		err = f.Chmod(s.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// unwrapPath drops the scratch path from a file error: the message names
// the file the write was for instead.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// slotPath is where an op's file waits in the write's folder.
func (t *tx) slotPath(o op) string { return path.Join(t.dir, o.slot) }

// do applies one step.
func (t *tx) do(o op) error {
	switch o.kind {
	case opStash:
		return t.root.Rename(o.path, t.slotPath(o))
	case opRmdir:
		return t.root.Remove(o.path)
	case opMkdir:
		err := t.root.Mkdir(o.path, 0o755)
		if errors.Is(err, fs.ErrExist) {
			// Made meanwhile by another write of this run (a shared
			// parent): not this write's to undo.
			if info, serr := t.root.Lstat(o.path); serr == nil && info.IsDir() {
				delete(t.made, o.path)
				return nil
			}
		}
		return err
	default:
		return t.root.Rename(t.slotPath(o), o.path)
	}
}

// undo reverses the steps done, last first, in this process.
func (t *tx) undo(done []op) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		o := done[i]
		var err error
		switch o.kind {
		case opStash:
			err = t.root.Rename(t.slotPath(o), o.path)
		case opRmdir:
			err = t.root.Mkdir(o.path, o.mode)
		case opMkdir:
			if t.made[o.path] {
				err = t.root.Remove(o.path)
			}
		default:
			err = t.root.Rename(o.path, t.slotPath(o))
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// recoverWrite undoes the write whose journal is in dir (relative to the
// root), from what the disk shows of each step, last first, then removes
// the write's folder. Only the paths the journal names are touched.
func recoverWrite(root *os.Root, dir string) error {
	b, err := root.ReadFile(path.Join(dir, journalName))
	if err != nil {
		return err
	}
	ops, err := decodeJournal(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path.Join(dir, journalName), err)
	}
	t := &tx{root: root, dir: dir}
	for i := len(ops) - 1; i >= 0; i-- {
		if err := t.reverse(ops[i]); err != nil {
			return fmt.Errorf("cannot undo the interrupted write of %s: %w", ops[i].path, err)
		}
	}
	return root.RemoveAll(dir)
}

// reverse undoes one step of an interrupted write if it was done.
func (t *tx) reverse(o op) error {
	exists := func(p string) bool { _, err := t.root.Lstat(p); return err == nil }
	switch o.kind {
	case opStash:
		if exists(t.slotPath(o)) {
			return t.root.Rename(t.slotPath(o), o.path)
		}
	case opRmdir:
		if !exists(o.path) {
			return t.root.Mkdir(o.path, o.mode)
		}
	case opMkdir:
		// Only an empty folder: a file there is one the write had not
		// moved out yet, and something in the folder is not the write's.
		if info, err := t.root.Lstat(o.path); err == nil && info.IsDir() {
			if err := t.root.Remove(o.path); err != nil && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
				return err
			}
		}
	default:
		if !exists(t.slotPath(o)) && exists(o.path) {
			return t.root.Rename(o.path, t.slotPath(o))
		}
	}
	return nil
}

// encodeJournal writes a write's steps, one a line: kind, slot or mode,
// quoted path.
func encodeJournal(ops []op) []byte {
	var b bytes.Buffer
	b.WriteString(journalHeader + "\n")
	for _, o := range ops {
		arg := o.slot
		switch o.kind {
		case opRmdir:
			arg = strconv.FormatUint(uint64(o.mode.Perm()), 8)
		case opMkdir:
			arg = "-"
		}
		fmt.Fprintf(&b, "%c %s %s\n", o.kind, arg, strconv.Quote(o.path))
	}
	return b.Bytes()
}

// slotPattern is a slot's name.
var slotPattern = regexp.MustCompile(`^(?:[on][0-9]{1,9}|` + treeSlot + `)$`)

// decodeJournal reads a journal, refusing anything encodeJournal does not
// write.
func decodeJournal(b []byte) ([]op, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != journalHeader {
		return nil, errors.New("not a kptkit journal")
	}
	var ops []op
	for n := 2; sc.Scan(); n++ {
		o, err := decodeOp(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		ops = append(ops, o)
	}
	return ops, sc.Err()
}

func decodeOp(line string) (op, error) {
	kind, rest, _ := strings.Cut(line, " ")
	arg, quoted, _ := strings.Cut(rest, " ")
	p, err := strconv.Unquote(quoted)
	if err != nil || len(kind) != 1 {
		return op{}, fmt.Errorf("cannot read %q", line)
	}
	if err := kptpkg.CheckPath("path", p); err != nil {
		return op{}, err
	}
	o := op{kind: opKind(kind[0]), path: p}
	switch o.kind {
	case opStash, opPut:
		if !slotPattern.MatchString(arg) {
			return op{}, fmt.Errorf("cannot read %q", line)
		}
		o.slot = arg
	case opRmdir:
		mode, err := strconv.ParseUint(arg, 8, 32)
		if err != nil || mode > 0o777 {
			return op{}, fmt.Errorf("cannot read %q", line)
		}
		o.mode = fs.FileMode(mode)
	case opMkdir:
	default:
		return op{}, fmt.Errorf("cannot read %q", line)
	}
	return o, nil
}
