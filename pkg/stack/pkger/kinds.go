package pkger

import (
	"fmt"
	"net/url"
	"strings"
)

// rule checks the spec of one kind; name is the object's display name.
type rule func(p *pkg, name string, spec value) []failure

// rules are pkger's per-kind rules (parser_models.go's valid methods).
var rules = map[string]rule{
	KindBucket:                        bucket,
	KindCheckDeadman:                  check(false),
	KindCheckThreshold:                check(true),
	KindDashboard:                     dashboard,
	KindLabel:                         func(_ *pkg, name string, _ value) []failure { return validName(name, 2) },
	KindNotificationEndpointHTTP:      endpoint(KindNotificationEndpointHTTP),
	KindNotificationEndpointPagerDuty: endpoint(KindNotificationEndpointPagerDuty),
	KindNotificationEndpointSlack:     endpoint(KindNotificationEndpointSlack),
	KindNotificationRule:              notificationRule,
	KindTask:                          task,
	KindTelegraf:                      telegraf,
	KindVariable:                      variable,
}

func bucket(_ *pkg, name string, spec value) []failure {
	out := validName(name, 2)
	for i, r := range spec.list("retentionRules") {
		path := fmt.Sprintf("spec.retentionRules[%d]", i)
		if secs, _ := r.num("everySeconds"); secs < 3600 {
			out = append(out, fail(path+".everySeconds", "seconds must be a minimum of 3600"))
		}
		if r.str("type") != "expire" {
			out = append(out, fail(path+".type", `type must be "expire"`))
		}
	}
	for i, ms := range spec.list("measurementSchemas") {
		out = append(out, measurementSchema(fmt.Sprintf("spec.measurementSchemas[%d]", i), ms)...)
	}
	return out
}

// activeStatus reports whether a status field is empty, active or inactive.
func activeStatus(spec value) bool {
	s := spec.norm("status")
	return s == "" || s == "active" || s == "inactive"
}

// checkLevel reports whether a level is one of the check levels.
func checkLevel(level string) bool {
	switch level {
	case "CRIT", "WARN", "INFO", "OK":
		return true
	}
	return false
}

func check(threshold bool) rule {
	return func(_ *pkg, name string, spec value) []failure {
		out := validName(name, 1)
		if spec.duration("every") == 0 {
			out = append(out, fail("spec.every", "duration value must be provided that is >= 5s (seconds)"))
		}
		if strings.TrimSpace(spec.str("query")) == "" {
			out = append(out, fail("spec.query", "must provide a non zero value"))
		}
		if spec.str("statusMessageTemplate") == "" {
			out = append(out, fail("spec.statusMessageTemplate", `must provide a template; ex. "Check: ${ r._check_name } is: ${ r._level }"`))
		}
		if !activeStatus(spec) {
			out = append(out, fail("spec.status", "must be 1 of [active, inactive]"))
		}
		if !threshold {
			return out
		}
		thresholds := spec.list("thresholds")
		if len(thresholds) == 0 {
			out = append(out, fail("spec.thresholds", "must provide at least 1 threshold entry"))
		}
		for i, th := range thresholds {
			out = append(out, thresholdRule(fmt.Sprintf("spec.thresholds[%d]", i), th)...)
		}
		return out
	}
}

func thresholdRule(path string, th value) []failure {
	var out []failure
	if level := strings.TrimSpace(strings.ToUpper(th.str("level"))); !checkLevel(level) {
		out = append(out, fail(path+".level", "must be 1 in [CRIT, WARN, INFO, OK]; got=%q", level))
	}
	switch t := th.norm("type"); t {
	case "greater", "lesser", "inside_range", "outside_range":
	default:
		out = append(out, fail(path+".type", "must be 1 in [Lesser, Greater, Inside_Range, Outside_Range]; got=%q", t))
	}
	lo, _ := th.num("min")
	hi, _ := th.num("max")
	if lo > hi {
		out = append(out, fail(path+".min", "min must be < max"))
	}
	return out
}

func dashboard(_ *pkg, name string, spec value) []failure {
	out := validName(name, 2)
	for i, c := range spec.list("charts") {
		for _, f := range chart(c) {
			f.field = fmt.Sprintf("spec.charts[%d].%s", i, f.field)
			out = append(out, f)
		}
	}
	return out
}

var httpMethods = map[string]bool{"DELETE": true, "GET": true, "HEAD": true, "OPTIONS": true, "PATCH": true, "POST": true, "PUT": true}

func endpoint(kind string) rule {
	return func(_ *pkg, name string, spec value) []failure {
		out := validName(name, 1)
		u := spec.str("url")
		if _, err := url.Parse(u); err != nil || u == "" {
			out = append(out, fail("spec.url", "must be valid url"))
		}
		if !activeStatus(spec) {
			out = append(out, fail("spec.status", "not a valid status; valid statues are one of [active, inactive]"))
		}
		switch kind {
		case KindNotificationEndpointPagerDuty:
			if !spec.ref("routingKey").has() {
				out = append(out, fail("spec.routingKey", "must be provide"))
			}
		case KindNotificationEndpointHTTP:
			out = append(out, httpEndpoint(spec)...)
		}
		return out
	}
}

func httpEndpoint(spec value) []failure {
	var out []failure
	if !httpMethods[strings.TrimSpace(strings.ToUpper(spec.str("method")))] {
		out = append(out, fail("spec.method", "http method must be a valid HTTP verb"))
	}
	need := func(field string) {
		if !spec.ref(field).has() {
			out = append(out, fail("spec."+field, "must provide non empty string"))
		}
	}
	switch t := spec.norm("type"); t {
	case "basic":
		need("password")
		need("username")
	case "bearer":
		need("token")
	case "none":
	default:
		out = append(out, fail("spec.type", "invalid type provided %q; valid type is 1 in [basic, bearer, none]", t))
	}
	return out
}

func notificationRule(p *pkg, name string, spec value) []failure {
	out := validName(name, 1)
	switch ep := spec.ref("endpointName"); {
	case !ep.has():
		out = append(out, fail("spec.endpointName", "must be provided"))
	case !p.endpoints[ep.String()]:
		out = append(out, fail("spec.endpointName", "notification endpoint %q does not exist in pkg", ep.String()))
	}
	if spec.duration("every") == 0 {
		out = append(out, fail("spec.every", "must be provided"))
	}
	if !activeStatus(spec) {
		out = append(out, fail("spec.status", "must be 1 in [active, inactive]; got=%q", spec.norm("status")))
	}
	statusRules := spec.list("statusRules")
	if len(statusRules) == 0 {
		out = append(out, fail("spec.statusRules", "must provide at least 1"))
	}
	for i, r := range statusRules {
		path := fmt.Sprintf("spec.statusRules[%d]", i)
		if cur := strings.TrimSpace(strings.ToUpper(r.str("currentLevel"))); !checkLevel(cur) {
			out = append(out, fail(path+".currentLevel", "must be 1 in [CRIT, WARN, INFO, OK]; got=%q", cur))
		}
		if prev := strings.TrimSpace(strings.ToUpper(r.str("previousLevel"))); prev != "" && !checkLevel(prev) {
			out = append(out, fail(path+".previousLevel", "must be 1 in [CRIT, WARN, INFO, OK]; got=%q", prev))
		}
	}
	for i, r := range spec.list("tagRules") {
		switch op := r.norm("operator"); op {
		case "equal", "notequal", "equalregex", "notequalregex":
		default:
			out = append(out, fail(fmt.Sprintf("spec.tagRules[%d].operator", i), "must be 1 in [equal]; got=%q", op))
		}
	}
	return out
}

func task(_ *pkg, name string, spec value) []failure {
	out := validName(name, 1)
	if spec.str("cron") == "" && spec.duration("every") == 0 {
		out = append(out,
			fail("spec.every", "must provide if cron field is not provided"),
			fail("spec.cron", "must provide if every field is not provided"))
	}
	if strings.TrimSpace(spec.str("query")) == "" {
		out = append(out, fail("spec.query", "must provide a non zero value"))
	}
	if !activeStatus(spec) {
		out = append(out, fail("spec.status", "must be 1 of [active, inactive]"))
	}
	return out
}

func telegraf(_ *pkg, name string, spec value) []failure {
	out := validName(name, 1)
	if spec.str("config") == "" {
		out = append(out, fail("spec.config", "no config provided"))
	}
	return out
}

func variable(_ *pkg, name string, spec value) []failure {
	out := validName(name, 1)
	switch spec.norm("type") {
	case "map":
		if spec.size("values") == 0 {
			out = append(out, fail("spec.values", "map variable must have at least 1 key/val pair"))
		}
	case "constant":
		if len(spec.strs("values")) == 0 {
			out = append(out, fail("spec.values", "constant variable must have a least 1 value provided"))
		}
	case "query":
		if strings.TrimSpace(spec.str("query")) == "" {
			out = append(out, fail("spec.query", "query variable must provide a query string"))
		}
		if lang := spec.norm("language"); lang != "influxql" && lang != "flux" {
			out = append(out, fail("spec.language", `query variable language must be either "influxql" or "flux"; got %q`, lang))
		}
	}
	return out
}
