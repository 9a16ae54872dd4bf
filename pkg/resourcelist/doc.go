// Package resourcelist reads a KRM ResourceList (bytes in) into items that
// functions select, edit, delete or append, and writes it back (bytes out):
// every item no function changed comes out as its original bytes, comments,
// order and quoting included; changed and new items are encoded the way kpt
// writes YAML, with strings that YAML 1.1 would misread quoted.
package resourcelist
