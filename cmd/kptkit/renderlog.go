package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/kptkit/kptkit/pkg/render"
)

// renderLog prints a render as kpt fn render does: each package, each step
// started and passed or failed, with its results and stderr.
type renderLog struct {
	w          io.Writer
	truncate   bool // at most maxLines of results and stderr
	failedStep bool // a step failed and was reported
}

// maxLines is how many results or stderr lines kpt shows of a step.
const maxLines = 4

func (p *renderLog) event(e render.Event) {
	switch {
	case e.Function == nil && !e.End:
		fmt.Fprintf(p.w, "Package %q: \n", e.Package)
	case e.Function == nil:
		fmt.Fprintln(p.w)
	case !e.End:
		fmt.Fprintf(p.w, "[RUNNING] %q", e.Function.String())
		if e.Count >= 0 {
			fmt.Fprintf(p.w, " on %d resource(s)", e.Count)
		}
		fmt.Fprintln(p.w)
	case e.Err == nil:
		fmt.Fprintf(p.w, "[PASS] %q in %v\n", e.Function.String(), e.Duration.Truncate(100*time.Millisecond))
		p.stepDetails(e.Result, false)
	default:
		fmt.Fprintf(p.w, "[FAIL] %q in %v\n", e.Function.String(), e.Duration.Truncate(100*time.Millisecond))
		// A function that exited non-zero is told in full here (kpt's
		// way); other failures are told as the command's error.
		var exit *render.ExitError
		if errors.As(e.Err, &exit) {
			p.stepDetails(e.Result, true)
			p.failedStep = true
		} else if e.Result != nil {
			p.stepDetails(&render.StepResult{Results: e.Result.Results}, false)
		}
	}
}

// stepDetails prints a step's results and stderr (and exit code).
func (p *renderLog) stepDetails(r *render.StepResult, failed bool) {
	if r == nil {
		return
	}
	var lines []string
	for _, res := range r.Results {
		if res != nil {
			lines = append(lines, res.String())
		}
	}
	p.lines("Results", lines, false)
	if r.Stderr != "" {
		p.lines("Stderr", strings.Split(r.Stderr, "\n"), true)
	}
	if failed {
		fmt.Fprintf(p.w, "  Exit code: %d\n\n", r.ExitCode)
	}
}

func (p *renderLog) lines(title string, lines []string, quote bool) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(p.w, "  %s:\n", title)
	for i, l := range lines {
		if p.truncate && i == maxLines {
			fmt.Fprintf(p.w, "    ...(%d line(s) truncated, use '--truncate-output=false' to disable)\n", len(lines)-maxLines)
			break
		}
		l = strings.ReplaceAll(l, "\n", " ")
		if quote {
			l = fmt.Sprintf("%q", l)
		}
		fmt.Fprintf(p.w, "    %s\n", l)
	}
}

// results says where the complete results went.
func (p *renderLog) results(dir string) {
	if dir != "" {
		fmt.Fprintf(p.w, "For complete results, see %s\n", filepath.Join(dir, "results.yaml"))
	}
}
