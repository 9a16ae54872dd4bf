package inject_test

import (
	"testing"

	"github.com/kptkit/kptkit/pkg/krmfn"
	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// configOf parses a functionConfig.
func configOf(t *testing.T, config string) *krmfn.Config {
	t.Helper()
	rl, err := resourcelist.Parse(resourceList(config))
	if err != nil {
		t.Fatal(err)
	}
	c := krmfn.ConfigOf(rl)
	if c == nil {
		t.Fatal("no functionConfig")
	}
	return c
}
