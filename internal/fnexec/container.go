package fnexec

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/kptkit/kptkit/internal/bounded"
	"github.com/kptkit/kptkit/pkg/render"
)

// Container runs images in a container engine (docker, or podman or
// nerdctl as $KPT_FN_RUNTIME says), as kpt does — no network, no mounts,
// as nobody — when the engine answers; otherwise it fails saying why and
// the ways out (the step's failure names the image).
type Container struct {
	// Env is the environment of the engine's client (and where
	// KPT_FN_RUNTIME is read).
	Env []string
	// Limits bound each run in time: the container is killed, then the
	// engine's client. (Its memory is the engine's business: an rlimit of
	// the client would not bound the container.)
	Limits bounded.Limits

	once   sync.Once
	bin    string
	engine error // why no engine answers
}

// Runner implements render.Runtime for images.
func (c *Container) Runner(fn render.Function) (render.Runner, error) {
	if fn.Image == "" {
		return nil, &render.Unhandled{}
	}
	image, err := withTag(fn)
	if err != nil {
		return nil, err
	}
	c.once.Do(c.probe)
	if c.engine != nil {
		// The step's failure names the image: this does not again.
		return nil, fmt.Errorf("it needs a container engine: %v; start docker or podman (KPT_FN_RUNTIME=podman), "+
			"or give --exec-for IMAGE=PATH to run a binary of the function instead", c.engine)
	}
	limits := c.Limits
	limits.Memory = 0
	return &containerRun{Process{Path: c.bin, Args: []string{
		"run", "--rm", "-i", "--network", "none", "--user", "nobody",
		"--security-opt=no-new-privileges", "--pull", "missing", image,
	}, Env: c.Env, Limits: limits}}, nil
}

// containerRun runs an image in a container engine, each run in a
// container of its own name, killed by the engine when its time is up.
type containerRun struct{ Process }

// Run implements render.Runner.
func (c *containerRun) Run(in []byte) ([]byte, render.Exit, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "kptkit-" + hex.EncodeToString(b[:])
	args := append([]string{c.Args[0], "--name", name}, c.Args[1:]...)
	kill := func() {
		// the client's death would leave the container running
		_, _ = bounded.Cmd{Path: c.Path, Args: []string{"kill", name}, Env: c.Env, Limits: bounded.Limits{Time: 10 * time.Second}}.Run(nil)
	}
	return c.run(args, in, kill, true)
}

// withTag applies a Kptfile `tag:` that is a version to the image; a
// constraint would need the registry's tags, which kptkit does not read.
func withTag(fn render.Function) (string, error) {
	if fn.Tag == "" {
		return fn.Image, nil
	}
	ref := render.ParseImage(fn.Image)
	if _, err := semver.NewVersion(fn.Tag); err != nil {
		if _, cerr := semver.NewConstraint(fn.Tag); cerr == nil {
			return "", fmt.Errorf("%s: tag %q is a version constraint, and no built-in satisfies it: kptkit does not list registry tags (give a version)", ref.Repository, fn.Tag)
		}
	}
	return ref.Repository + ":" + fn.Tag, nil
}

// probe finds the engine and asks it whether its daemon answers.
func (c *Container) probe() {
	c.bin = "docker"
	switch rt := strings.ToLower(envValue(c.Env, "KPT_FN_RUNTIME")); rt {
	case "", "docker":
	case "podman", "nerdctl":
		c.bin = rt
	default:
		c.engine = fmt.Errorf("unsupported runtime: %q the runtime must be either docker or podman", rt)
		return
	}
	e := &Exec{Env: c.Env}
	path, err := e.lookPath(c.bin)
	if err != nil {
		c.engine = fmt.Errorf("%s is not installed", c.bin)
		return
	}
	c.bin = path
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "info", "--format", "{{json .}}")
	cmd.Env = c.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		c.engine = fmt.Errorf("%s does not answer (%s)", filepath.Base(c.bin), msg)
	}
}

// engineNoise are the lines container engines write while pulling; kpt
// leaves them out of a function's stderr.
var engineNoise = []string{
	": Already exists", ": Pulling fs layer", ": Verifying Checksum", ": Download complete",
	": Pulling from", ": Waiting", ": Pull complete", "Digest: sha256", "Status: Downloaded newer image",
	"Status: Image is up to date for", "Unable to find image", "Trying to pull",
	"Getting image source signatures", "Copying blob sha256:", "Copying config sha256:",
	"Writing manifest to image destination", "Storing signatures",
}

// filterEngine drops the engine's pull progress from stderr.
func filterEngine(stderr string) string {
	s := bufio.NewScanner(strings.NewReader(stderr))
	var lines []string
	for s.Scan() {
		noise := false
		for _, n := range engineNoise {
			noise = noise || strings.Contains(s.Text(), n)
		}
		if !noise {
			lines = append(lines, s.Text())
		}
	}
	return strings.Join(lines, "\n")
}
