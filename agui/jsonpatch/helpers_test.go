package jsonpatch_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agui-go/sdk/agui"
)

// patchOf decodes a JSON Patch document the way a client receives one: as
// the delta of a STATE_DELTA event, through the strict decoder.
func patchOf(t testing.TB, text string) agui.JSONPatch {
	t.Helper()
	ev, err := agui.DecodeEvent([]byte(`{"type":"STATE_DELTA","delta":` + text + `}`))
	if err != nil {
		t.Fatalf("patch %s: %v", text, err)
	}
	return ev.(*agui.StateDelta).Delta
}

func patchText(t testing.TB, p agui.JSONPatch) string {
	t.Helper()
	b, err := agui.NewStateDelta(p).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct{ Delta json.RawMessage }
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	return string(ev.Delta)
}

// sameJSON reports whether a and b are the same JSON value, member order
// aside.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}
