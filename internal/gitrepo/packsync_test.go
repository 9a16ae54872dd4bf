package gitrepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kptkit/kptkit/internal/gittest"
	"github.com/kptkit/kptkit/pkg/kptpkg"
	"github.com/kptkit/kptkit/pkg/pkgrev"
)

const syncDraft = "refs/heads/drafts/x/packagevariant-1"

// syncChange is a change that creates the draft syncDraft over main.
func syncChange(main string) pkgrev.Change {
	sig := pkgrev.Signature{Name: "a", Email: "a@x", When: when}
	return pkgrev.Change{
		Commit: &pkgrev.NewCommit{Base: main, Parents: []string{main}, Path: "x", Message: "m", Author: sig, Committer: sig,
			Files: kptpkg.Files{"Kptfile": []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n")}},
		Refs: []pkgrev.RefUpdate{{Name: syncDraft, ToCommit: true}},
	}
}

// TestPackSynced: changes made in several repositories at once each sync
// their pack and index before anything else: when they are synced they
// are temporary files and the change's ref has not moved; after it the
// ref names its commit, git reads each repository whole, and no temporary
// file is left. A file that cannot be synced fails its own change only:
// its ref does not move and its pack is not left; the others are made.
func TestPackSynced(t *testing.T) {
	for _, tc := range []struct {
		name    string
		failing int // the repository whose sync fails (-1: none)
		want    []string
	}{
		{name: "all made", failing: -1, want: []string{"made", "made", "made", "made", "made", "made"}},
		{name: "a sync fails", failing: 3, want: []string{"made", "made", "made", "cannot sync: input/output error", "made", "made"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 6
			var repos []*gittest.Plumb
			var mains []string
			for range n {
				p := gittest.NewPlumb(t)
				mains = append(mains, p.Commit(map[string]string{"README.md": "r\n"}, "init", "a", "a@x"))
				p.Ref("refs/heads/main", mains[len(mains)-1])
				repos = append(repos, p)
			}
			var problems []string
			synced := 0
			var mu sync.Mutex
			SetSyncHook(func(files []string) {
				mu.Lock()
				defer mu.Unlock()
				synced += len(files)
				for _, f := range files {
					repo := filepath.Dir(filepath.Dir(filepath.Dir(f)))
					if !strings.HasPrefix(filepath.Base(f), "tmp_pack_") {
						problems = append(problems, "synced under its name: "+f)
					}
					if _, err := os.Stat(filepath.Join(repo, syncDraft)); err == nil {
						problems = append(problems, "a ref moved before its sync: "+repo)
					}
				}
			})
			defer SetSyncHook(nil)
			if tc.failing >= 0 {
				bad := repos[tc.failing].Dir + string(filepath.Separator)
				syncFile = func(f *os.File) error {
					if strings.HasPrefix(f.Name(), bad) {
						return fmt.Errorf("cannot sync: %w", syscall.EIO)
					}
					return fsyncFile(f)
				}
				defer func() { syncFile = fsyncFile }()
			}
			got := make([]string, n)
			commits := make([]string, n)
			var wg sync.WaitGroup
			for i, p := range repos {
				wg.Go(func() {
					var err error
					commits[i], err = open(t, p.Dir).Apply(context.Background(), syncChange(mains[i]))
					got[i] = "made"
					if err != nil {
						got[i] = strings.TrimPrefix(err.Error(), "cannot write the objects of a change in "+p.Dir+": ")
					}
				})
			}
			wg.Wait()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if synced != 2*n {
				t.Errorf("%d files synced, want %d (a pack and its index a change)", synced, 2*n)
			}
			if len(problems) > 0 {
				t.Errorf("when synced:\n%s", strings.Join(problems, "\n"))
			}
			for i, p := range repos {
				checkSyncedRepo(t, p, i != tc.failing, commits[i])
			}
		})
	}
}

// checkSyncedRepo checks a repository after its change: git reads it whole,
// no temporary file is left, and the draft names the commit with one pack,
// read-only (made), or is not there with no pack (not made).
func checkSyncedRepo(t *testing.T, p *gittest.Plumb, made bool, commit string) {
	t.Helper()
	p.Git("fsck", "--strict", "--no-dangling")
	temps, _ := filepath.Glob(filepath.Join(p.Dir, "objects", "pack", "tmp_*"))
	packs, _ := filepath.Glob(filepath.Join(p.Dir, "objects", "pack", "pack-*"))
	draft := p.Git("for-each-ref", "--format=%(objectname)", syncDraft)
	want, wantPacks := "", 0
	if made {
		want, wantPacks = commit, 2
	}
	if draft != want || len(packs) != wantPacks || len(temps) != 0 {
		t.Errorf("%s: draft %q (want %q), packs %v, temporary files %v", p.Dir, draft, want, packs, temps)
	}
	for _, f := range packs {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s is not read-only, as git writes packs: %v", f, fi.Mode())
		}
	}
}
