// Package params is Hub's parameters for resolve-deps: layers of
// parameters go in (each package's own, in install order, then the stack's,
// base first, then the user's), and come out merged by Hub's rules, locked
// (fromEnv read from the environment given, defaults applied, ${name}
// expressions evaluated, empty values refused unless allowed), and resolved
// in each package's scope (name|package first, then the outputs of the
// packages installed before it, then the plain name), with where each
// value came from and whether it is secret. Every problem is returned, not
// just the first.
package params
