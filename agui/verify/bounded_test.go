//go:build !agui_noverify

package verify_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
)

// A failure with a great many entities open names the first few and counts
// the rest, in the detail and in the open set alike, so its text stays small
// however many are open; a huge id is cut too.
func TestOpenListIsCapped(t *testing.T) {
	const n = 30_000                        // the text must not depend on it (the issue saw 3×10^5)
	long := "a" + strings.Repeat("é", 5000) // 10,001 bytes, sorted first; the cut must fall on a rune boundary
	for _, tc := range []struct {
		name string
		obs  interface{ Observe(agui.Event) error }
	}{{"server", &verify.Server{}}, {"client", &verify.Client{}}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.obs.Observe(rs("r1")); err != nil {
				t.Fatal(err)
			}
			if err := tc.obs.Observe(tcs(long, "")); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if err := tc.obs.Observe(tcs(fmt.Sprintf("call-%06d", i), "")); err != nil {
					t.Fatal(err)
				}
			}
			err := tc.obs.Observe(rf("r1"))
			var ve *verify.Error
			if !errors.As(err, &ve) || ve.Rule != verify.OpenAtFinish {
				t.Fatalf("got %v, want open-at-finish", err)
			}
			msg := err.Error()
			if len(msg) > 1024 {
				t.Fatalf("message is %d bytes: %.300s…", len(msg), msg)
			}
			for _, want := range []string{`"call-000000"`, `"call-000003"`, fmt.Sprintf("and %d more", n+1-5), "(10001 bytes)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %s: %s", want, msg)
				}
			}
			if strings.Contains(msg, `"call-000004"`) {
				t.Errorf("message lists more than five ids: %s", msg)
			}
			if !strings.Contains(ve.Open, fmt.Sprintf("and %d more", n+1-5)) || len(ve.Open) > 512 {
				t.Errorf("Open = %q, want the capped list", ve.Open)
			}
			if !utf8.ValidString(msg) {
				t.Errorf("message is not valid UTF-8")
			}
		})
	}
}
