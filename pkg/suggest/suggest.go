// Package suggest finds, for a word a user mistyped, the known word they most
// likely meant ("metadta" → "metadata"), for "did you mean" hints.
package suggest

import "strings"

// Closest returns the candidate nearest to word, or "" when none is close
// enough to be a plausible typo (an edit distance of at most a third of the
// word's length, and at least 1; case differences count as close).
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	limit := max(1, len(word)/3)
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := distance(strings.ToLower(word), strings.ToLower(c))
		if d > limit {
			continue
		}
		if bestDist < 0 || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

// Hint returns ` (did you mean "x"?)` for the closest candidate, or "".
func Hint(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// distance is the optimal string alignment distance: insertions, deletions,
// substitutions and transpositions of two adjacent letters each cost 1.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return max(len(ra), len(rb))
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
