package main

import "flag"

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (`stack show PKG --json`), as most CLIs allow;
// the standard flag package stops at the first positional one. Afterwards
// fs.Args() holds the positional arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...) // after "--", nothing is a flag
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	// Leave the positional arguments where fs.Args() finds them.
	return fs.Parse(append([]string{"--"}, positional...))
}
