package spectest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a TB that records how a test would have ended.
type recorder struct {
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

// TestMissingDataPolicy checks both sides of the policy: a skip that names
// AGUI_SPEC_DIR and says where the data comes from without CI, a failure
// with CI set, for the directory and the fixtures alike.
func TestMissingDataPolicy(t *testing.T) {
	empty := t.TempDir() // holds no 1.0/schema.json
	for _, tc := range []struct {
		name    string
		ci      string
		require func(TB)
		fails   bool
	}{
		{"Require, local", "", func(tb TB) { Require(tb) }, false},
		{"Require, CI", "true", func(tb TB) { Require(tb) }, true},
		{"RequireFixtures, local", "", func(tb TB) { RequireFixtures(tb) }, false},
		{"RequireFixtures, CI", "1", func(tb TB) { RequireFixtures(tb) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AGUI_SPEC_DIR", empty)
			t.Setenv("CI", tc.ci)
			var r recorder
			tc.require(&r)
			if tc.fails {
				if r.failed == "" || r.skipped != "" {
					t.Fatalf("with CI set: failed %q, skipped %q; want a failure only", r.failed, r.skipped)
				}
				if !strings.Contains(r.failed, "AGUI_SPEC_DIR") {
					t.Errorf("failure does not name AGUI_SPEC_DIR: %s", r.failed)
				}
				return
			}
			if r.skipped == "" || r.failed != "" {
				t.Fatalf("without CI: failed %q, skipped %q; want a skip only", r.failed, r.skipped)
			}
			for _, want := range []string{"AGUI_SPEC_DIR", "ag-ui-protocol/ag-ui", "spec/"} {
				if !strings.Contains(r.skipped, want) {
					t.Errorf("skip message lacks %q: %s", want, r.skipped)
				}
			}
		})
	}
}

// TestRequireFindsData checks that present data passes without a skip or
// failure, under CI or not. It needs the data itself, so it follows the
// same policy when the data is absent.
func TestRequireFindsData(t *testing.T) {
	dir := Require(t)
	var r recorder
	if got := Require(&r); got != dir || r.skipped != "" || r.failed != "" {
		t.Fatalf("Require = %q (skipped %q, failed %q); want %q", got, r.skipped, r.failed, dir)
	}
	if fx := RequireFixtures(&r); len(fx) == 0 || r.skipped != "" || r.failed != "" {
		t.Fatalf("RequireFixtures: %d fixtures (skipped %q, failed %q)", len(fx), r.skipped, r.failed)
	}
}
