package agui

import "testing"

func TestWarningString(t *testing.T) {
	for _, tc := range []struct {
		w    Warning
		want string
	}{
		{Warning{Kind: WarnStripped, Index: 3, Offset: -1, Message: "at /x: removed unrecognised member on RUN_STARTED"},
			"frame 3: [stripped] at /x: removed unrecognised member on RUN_STARTED"},
		{Warning{Kind: "era", Index: -1, Offset: -1, Message: "lost"}, "[era] lost"},
		{Warning{Kind: WarnDropped, Index: 0, Offset: 12, Message: "dropped"}, "frame 0: [dropped-event] dropped"},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.w, got, tc.want)
		}
	}
}
