// Package solver decides which candidate of each package to choose: a
// Problem (numbered packages with numbered candidates, and incompatibilities
// between their candidates) goes in; a Solution, or a Failure whose learned
// incompatibility proves that none exists, comes out. It is PubGrub (the
// algorithm of Dart's pub and Swift's package manager) over bit sets of
// candidates: complete, it learns from every conflict so that no failed
// partial assignment is tried twice, it bounds its work by a step budget,
// and Minimize shrinks a failure's constraints to an irreducible set for
// explanations.
package solver
