package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kptkit/kptkit/pkg/fleet"
)

// progress shows variants done out of all: a bar on a terminal, a plain
// line every tenth otherwise (CI logs), nothing for small fleets.
type progress struct {
	w    io.Writer
	bar  *progressbar.ProgressBar
	tty  bool
	last int
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == ""}
}

func (p *progress) update(done, total int, _ *fleet.Variant) {
	if total < 20 {
		return
	}
	if p.tty {
		if p.bar == nil {
			p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription("rendering variants"),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
		}
		_ = p.bar.Set(done)
		return
	}
	if tenth := done * 10 / total; tenth > p.last || done == total {
		p.last = tenth
		fmt.Fprintf(p.w, "rendered %d/%d variants\n", done, total)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
