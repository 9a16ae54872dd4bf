package stack

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kptkit/kptkit/pkg/api/v1alpha1"
	"github.com/kptkit/kptkit/pkg/decode"
	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/result"
	"github.com/kptkit/kptkit/pkg/stack/pkger"
)

// KindApplyStack is the accepted functionConfig kind.
var KindApplyStack = v1alpha1.TypeApplyStack

// EnvSourceDateEpoch is the variable (seconds since 1970, UTC) that fixes the
// clock for reproducible runs when ApplyStack.now is not set.
const EnvSourceDateEpoch = "SOURCE_DATE_EPOCH"

// Options is what an apply needs beyond the ResourceList.
type Options struct {
	// Stack names the Stack item to use; empty: the package's only one, or
	// a new one named after the package.
	Stack string
	// Now is the time recorded as createdAt and updatedAt.
	Now time.Time
	// Env holds the values of environment references, by key.
	Env pkger.Env
	// Secrets names the secrets known to be provided.
	Secrets []string
	// DryRun plans and reports without changing the record.
	DryRun bool
}

// OptionsFrom reads the options from the functionConfig (nil: none) and the
// environment (see NewOptions). Problems come back as results, all of
// them, each naming the functionConfig and its field.
func OptionsFrom(c *krmfn.Config, env krmfn.Env) (Options, []result.Result) {
	var (
		cfg v1alpha1.ApplyStack
		rs  []result.Result
	)
	if c != nil {
		if _, ok, bad := c.Match(KindApplyStack); !ok {
			return Options{}, []result.Result{bad}
		}
		rs = c.Decode(&cfg, decode.Options{KnownFields: true})
	}
	opts, errs := NewOptions(cfg, env)
	for _, err := range errs {
		if c == nil || err.Path == "" {
			rs = append(rs, result.Errorf("%s", err))
			continue
		}
		rs = append(rs, c.Errorf(err.Path, "%s: %s", c, err))
	}
	return opts, rs
}

// NewOptions returns the options an ApplyStack asks for, with the clock
// of the environment: ApplyStack.now, else SOURCE_DATE_EPOCH, else
// env.Now. Its mistakes come back all at once, each naming the
// ApplyStack's field (a clock that cannot be read names none).
func NewOptions(cfg v1alpha1.ApplyStack, env krmfn.Env) (Options, []decode.Error) {
	cfg.Default()
	errs := cfg.Validate()
	opts := Options{Stack: cfg.Stack, Secrets: cfg.Secrets, DryRun: cfg.DryRun}
	if len(cfg.EnvRefs) > 0 {
		opts.Env = make(pkger.Env, len(cfg.EnvRefs))
		for k, v := range cfg.EnvRefs {
			opts.Env[k] = string(v)
		}
	}
	now, err := clock(string(cfg.Now), env)
	if err != nil {
		errs = append(errs, decode.Error{Msg: err.Error()})
	}
	opts.Now = now
	return opts, errs
}

// clock returns the time to record.
func clock(now string, env krmfn.Env) (time.Time, error) {
	if now != "" {
		t, _ := time.Parse(time.RFC3339, now) // Validate reports a bad value
		return t.UTC(), nil
	}
	if env.Getenv != nil {
		if s := strings.TrimSpace(env.Getenv(EnvSourceDateEpoch)); s != "" {
			secs, err := strconv.ParseInt(s, 10, 64)
			if err != nil || secs < 0 || secs > 253402300799 { // 9999-12-31T23:59:59Z
				return time.Time{}, fmt.Errorf("%s=%q is not a number of seconds since 1970-01-01 (UTC) up to year 9999", EnvSourceDateEpoch, s)
			}
			return time.Unix(secs, 0).UTC(), nil
		}
	}
	if env.Now == nil {
		return time.Unix(0, 0).UTC(), nil
	}
	return env.Now().UTC(), nil
}
