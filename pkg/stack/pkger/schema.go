package pkger

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// measurementSchema checks one of a bucket's explicit measurement schemas
// (pkger's measurementSchema.valid): its name, its columns' names, types
// and data types, one "time" timestamp column, at least one field column,
// no two columns named alike.
func measurementSchema(path string, ms value) []failure {
	var out []failure
	if bad := schemaName(ms.str("name")); bad != "" {
		out = append(out, fail(path+".name", "%s", bad))
	}
	var (
		times, fields int
		names         []string
	)
	for i, col := range ms.list("columns") {
		colPath := fmt.Sprintf("%s.columns[%d]", path, i)
		name, typ, dataType := col.str("name"), col.str("type"), col.str("dataType")
		names = append(names, name)
		if bad := schemaName(name); bad != "" {
			out = append(out, fail(colPath+".name", "%s", bad))
		}
		if typ != "timestamp" && typ != "tag" && typ != "field" {
			out = append(out, fail(colPath+".type", "missing type"))
			continue
		}
		hasDataType := slices.Contains([]string{"float", "integer", "unsigned", "string", "boolean"}, dataType)
		if name == "time" {
			times++
			if typ != "timestamp" {
				out = append(out, fail(colPath+".type", `"time" column type must be timestamp`))
			}
			if hasDataType {
				out = append(out, fail(colPath+".dataType", "unexpected dataType for time column"))
			}
		}
		switch typ {
		case "timestamp":
			if name != "time" {
				out = append(out, fail(colPath+".name", `timestamp column must be named "time"`))
			}
		case "tag":
			if hasDataType {
				out = append(out, fail(colPath+".dataType", "unexpected dataType for tag column"))
			}
		case "field":
			if !hasDataType {
				out = append(out, fail(colPath+".dataType", "missing or invalid data type for field column"))
			}
			fields++
		}
	}
	if times == 0 {
		out = append(out, fail(path+".columns", `missing "time" column`))
	}
	if fields == 0 {
		out = append(out, fail(path+".columns", "at least one field column is required"))
	}
	slices.Sort(names)
	for i := 0; i+1 < len(names); i++ {
		if strings.EqualFold(names[i], names[i+1]) {
			out = append(out, fail(path+".columns", "duplicate columns with name %q", names[i]))
		}
	}
	return out
}

// schemaName is InfluxDB's complaint about a measurement or column name
// (ValidateMeasurementSchemaName), or "".
func schemaName(name string) string {
	switch {
	case name == "":
		return "too short"
	case len(name) > 128:
		return "too long"
	case !utf8.ValidString(name):
		return "invalid UTF-8 sequence"
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "non-printable character"
		}
		if r == unicode.ReplacementChar {
			return fmt.Sprintf("unicode replacement char %q cannot be used", unicode.ReplacementChar)
		}
	}
	switch {
	case strings.HasPrefix(name, "_"):
		return "must not begin with _"
	case strings.ContainsAny(name, `"'`):
		return "must not contains single or double quotes"
	}
	return ""
}
