// Package result holds the results a KRM function reports: a message with a
// severity and, where known, the resource, field and file it is about. Lists
// of results come out sorted, de-duplicated and capped, so that every problem
// is reported at once and in the same order on every run.
package result
