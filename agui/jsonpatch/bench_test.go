package jsonpatch_test

import (
	"encoding/json"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// benchState is a small application state, the kind STATE_DELTA patches.
var benchState = json.RawMessage(`{"count":0,"items":[{"id":"a","done":false},{"id":"b","done":true}],"user":{"name":"ann","plan":"pro","tags":["x","y"]},"note":"caf\u00e9"}`)

// BenchmarkApply: a two-operation delta applied to benchState (parse, patch,
// encode). BenchmarkEncodingJSONRoundTrip, run alongside, is encoding/json
// decoding the same document into map[string]any and encoding it again,
// with no patch at all: the floor of applying patches on generic values.
func BenchmarkApply(b *testing.B) {
	patch := agui.JSONPatch{
		&agui.ReplaceOperation{Path: "/count", Value: json.RawMessage(`1`)},
		&agui.ReplaceOperation{Path: "/items/1/done", Value: json.RawMessage(`false`)},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonpatch.Apply(benchState, patch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONRoundTrip(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(benchState, &v); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
