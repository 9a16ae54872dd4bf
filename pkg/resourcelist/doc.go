// Package resourcelist reads a KRM ResourceList (bytes in) into items that
// functions select, edit, delete or append, and writes it back (bytes out):
// every item no function changed comes out as its original bytes, comments,
// order and quoting included; changed and new items are encoded the way kpt
// writes YAML, with strings that YAML 1.1 would misread quoted.
//
// Reading is lazy: the input is split into items at their dashes and each
// item's header is read by a light scan; an item is parsed only when a
// function reads it (Node, Read, Edit). Wherever the scan cannot be sure
// of what yaml.v3 would read, yaml.v3 parses the item, or the whole list,
// instead.
package resourcelist
