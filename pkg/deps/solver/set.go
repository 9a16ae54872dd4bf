package solver

import (
	"math/bits"
	"strconv"
	"strings"
)

// Set is a set of candidate indexes of one package: bit i stands for the
// package's candidate i. Sets of one package have the same length; the
// operations never change their operands.
type Set []uint64

func words(n int) int { return (n + 63) / 64 }

// None returns the empty set of a package with n candidates.
func None(n int) Set { return make(Set, words(n)) }

// All returns the set of every candidate of a package with n candidates.
func All(n int) Set {
	s := None(n)
	for i := range s {
		s[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		s[len(s)-1] = 1<<r - 1
	}
	return s
}

// Of returns the set of the given candidates of a package with n candidates.
func Of(n int, members ...int) Set {
	s := None(n)
	for _, i := range members {
		s[i/64] |= 1 << (i % 64)
	}
	return s
}

// Has reports whether candidate i is in s.
func (s Set) Has(i int) bool {
	return i >= 0 && i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0
}

// With returns s with candidate i added.
func (s Set) With(i int) Set {
	out := s.clone()
	out[i/64] |= 1 << (i % 64)
	return out
}

// Without returns s with candidate i removed.
func (s Set) Without(i int) Set {
	out := s.clone()
	out[i/64] &^= 1 << (i % 64)
	return out
}

// And returns the candidates in both s and o.
func (s Set) And(o Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] & o[i]
	}
	return out
}

// Or returns the candidates in s or o.
func (s Set) Or(o Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] | o[i]
	}
	return out
}

// Minus returns the candidates in s and not in o.
func (s Set) Minus(o Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] &^ o[i]
	}
	return out
}

// Empty reports whether s has no candidate.
func (s Set) Empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// SubsetOf reports whether every candidate of s is in o.
func (s Set) SubsetOf(o Set) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

// Disjoint reports whether s and o have no candidate in common.
func (s Set) Disjoint(o Set) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return false
		}
	}
	return true
}

// Len returns the number of candidates in s.
func (s Set) Len() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// First returns the lowest candidate of s, or -1 when s is empty.
func (s Set) First() int {
	for i, w := range s {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Members returns the candidates of s in increasing order.
func (s Set) Members() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << b
		}
	}
	return out
}

// String lists the members: {0,3,4}.
func (s Set) String() string {
	var parts []string
	for _, m := range s.Members() {
		parts = append(parts, strconv.Itoa(m))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (s Set) clone() Set { return append(Set(nil), s...) }
