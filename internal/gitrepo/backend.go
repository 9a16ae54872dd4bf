package gitrepo

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// filesBackend returns the git folder whose refs kptkit may move in
// process (reftx.go), read once for the Repo: a plain git folder (not a
// linked work tree's, which shares its refs), refs kept as loose files and
// packed-refs (no extensions: no reftable), no reflog git would write
// (core.logAllRefUpdates, off by default in a bare repository), no
// reference-transaction hook, no core.sharedRepository permissions, no
// core.fsync of refs; else false, and git moves them.
func (g *Repo) filesBackend() (string, bool) {
	g.backendOnce.Do(func() {
		g.backendDir, g.backendOK = g.GitDir(), false
		g.plain = plainGitDir(g.Path, g.backendDir)
		if !g.plain || !userConfigPlain() {
			return
		}
		cfg, err := readConfig(filepath.Join(g.backendDir, "config"))
		if err != nil || !configPlain(cfg, true) {
			return
		}
		core := cfg.Section("core")
		bare := strings.EqualFold(core.Options.Get("bare"), "true")
		_, err = os.Lstat(filepath.Join(g.backendDir, "hooks", "reference-transaction"))
		g.backendOK = (bare || core.Options.Has("logallrefupdates")) && errors.Is(err, os.ErrNotExist)
	})
	return g.backendDir, g.backendOK
}

// plainDir reports whether the repository's git folder is its own, with
// its refs and objects in it (plainGitDir), read once for the Repo.
func (g *Repo) plainDir() bool {
	g.filesBackend()
	return g.plain
}

// plainGitDir reports whether dir is the repository's own git folder with
// its refs in it: HEAD and refs/ there, no commondir (a linked work
// tree's), no .git file in the work tree.
func plainGitDir(path, dir string) bool {
	if dir == path {
		if _, err := os.Lstat(filepath.Join(path, ".git")); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	head, err := os.Lstat(filepath.Join(dir, "HEAD"))
	refs, err2 := os.Lstat(filepath.Join(dir, "refs"))
	_, err3 := os.Lstat(filepath.Join(dir, "commondir"))
	return err == nil && err2 == nil && head.Mode().IsRegular() && refs.IsDir() && errors.Is(err3, os.ErrNotExist)
}

// configPlain reports whether a git config leaves a ref transaction
// plain: no includes (their values unseen), no extensions, no reflog
// forced on, no shared permissions, no fsync settings, no other hooks
// folder.
func configPlain(cfg *config.Config, repo bool) bool {
	for _, s := range cfg.Sections {
		if s.IsName("include") || s.IsName("includeif") || repo && s.IsName("extensions") && len(s.Options) > 0 {
			return false
		}
	}
	core := cfg.Section("core").Options
	for _, key := range []string{"sharedrepository", "fsync", "fsyncobjectfiles", "hookspath"} {
		if core.Has(key) {
			return false
		}
	}
	return !core.Has("logallrefupdates") || strings.EqualFold(core.Get("logallrefupdates"), "false")
}

// userConfigPlain reports whether the user's and the system's git
// configuration (and the environment's) leave ref transactions plain; read
// once.
var userConfigPlain = sync.OnceValue(func() bool {
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(k) != "" {
			return false
		}
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")}
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = []string{f}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files[len(files)-1] = f
		}
	}
	for _, f := range files {
		cfg, err := readConfig(f)
		if errors.Is(err, os.ErrNotExist) || home == "" && !filepath.IsAbs(f) {
			continue
		}
		if err != nil || !configPlain(cfg, false) {
			return false
		}
	}
	return true
})

// readConfig reads a git config file.
func readConfig(p string) (*config.Config, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg := config.New()
	if err := config.NewDecoder(bufio.NewReader(f)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", p, err)
	}
	return cfg, nil
}

// readPackedRefs reads packed-refs (none when there is none): name →
// value. A line it does not know is errInProcess (git reads it).
func readPackedRefs(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errInProcess
	}
	refs := map[string]string{}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "^") && plumbing.IsHash(line[1:]):
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if !ok || !plumbing.IsHash(hash) || !strings.HasPrefix(name, "refs/") || !validRefName(name) {
			return nil, errInProcess
		}
		refs[name] = hash
	}
	return refs, nil
}

// plainRefs returns the branches and tags of a plain git folder
// (plainDir), name → value, as git reads them: the loose files below
// refs/heads and refs/tags (listed by their folders' entries alone, no
// file looked up twice), else packed-refs; errInProcess for one git reads
// otherwise (a symbolic ref, a link), for go-git to read.
func plainRefs(dir string) (map[string]string, error) {
	refs, err := readPackedRefs(dir)
	if err != nil {
		return nil, err
	}
	if refs == nil {
		refs = map[string]string{}
	}
	for name := range refs {
		if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") {
			delete(refs, name)
		}
	}
	for _, top := range []string{"refs/heads", "refs/tags"} {
		if err := looseRefs(dir, top, refs); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// looseRefs adds the loose refs below the folder rel of dir to refs.
func looseRefs(dir, rel string, refs map[string]string) error {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errInProcess
	}
	for _, e := range entries {
		name := rel + "/" + e.Name()
		switch {
		case strings.HasPrefix(e.Name(), "."):
			// git skips these
		case e.IsDir():
			err = looseRefs(dir, name, refs)
		case !validRefName(name):
			// a lock, or a name git skips as no ref
		case !e.Type().IsRegular():
			err = errInProcess // a link: git's to read
		default:
			var v string
			if v, err = readLoose(dir, name); err == nil && v != "" {
				refs[name] = v
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
