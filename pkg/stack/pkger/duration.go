package pkger

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// unit is a Flux duration unit.
type unit struct {
	name string
	d    time.Duration
}

// Flux duration units, longest first so that "ms" is not read as "m".
var units = []unit{
	{"mo", 30 * 24 * time.Hour},
	{"ms", time.Millisecond},
	{"us", time.Microsecond},
	{"µs", time.Microsecond},
	{"ns", time.Nanosecond},
	{"y", 365 * 24 * time.Hour},
	{"w", 7 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
}

// ParseDuration reads a Flux duration literal as pkger's checks, rules and
// tasks take it (`every: 1h30m`, `offset: -5m`, `1mo`): one or more
// magnitude–unit pairs, optionally signed. Months and years count as 30 and
// 365 days (Flux makes them calendar-relative; pkger only tells zero from
// non-zero). A sum beyond time.Duration's range is an error.
func ParseDuration(s string) (time.Duration, error) {
	in := s
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return 0, fmt.Errorf("invalid duration %q: empty", in)
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("invalid duration %q: expected a number at %q", in, s)
		}
		var mag int64
		for _, c := range s[:i] {
			if mag > (1<<62)/10 {
				return 0, fmt.Errorf("invalid duration %q: %w", in, errOverflow)
			}
			mag = mag*10 + int64(c-'0')
		}
		s = s[i:]
		unit, ok := unitOf(s)
		if !ok {
			return 0, fmt.Errorf("invalid duration %q: unknown unit at %q (want one of y, mo, w, d, h, m, s, ms, us, ns)", in, s)
		}
		s = s[len(unit.name):]
		if mag != 0 && int64(unit.d) > (1<<62)/mag {
			return 0, fmt.Errorf("invalid duration %q: %w", in, errOverflow)
		}
		if total += time.Duration(mag) * unit.d; total < 0 || total > 1<<62 {
			return 0, fmt.Errorf("invalid duration %q: %w", in, errOverflow)
		}
	}
	if neg {
		total = -total
	}
	return total, nil
}

var errOverflow = errors.New("out of range")

// unitOf returns the unit s starts with.
func unitOf(s string) (unit, bool) {
	for _, u := range units {
		if strings.HasPrefix(s, u.name) {
			return u, true
		}
	}
	return unit{}, false
}

// duration reads a duration field; a missing or malformed one is zero, as
// pkger's durationShort has it.
func (v value) duration(key string) time.Duration {
	d, err := ParseDuration(strings.TrimSpace(v.str(key)))
	if err != nil {
		return 0
	}
	return d
}
