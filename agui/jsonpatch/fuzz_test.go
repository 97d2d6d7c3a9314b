package jsonpatch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
)

// FuzzApply: any document and any patch the protocol decoder accepts either
// apply, giving valid JSON, or fail with one *Error (or ErrInvalidDocument);
// never a panic, and never a change to the input.
func FuzzApply(f *testing.F) {
	for _, group := range [][]applyCase{rfcAppendixA, referenceCases} {
		for _, tc := range group {
			f.Add([]byte(tc.doc), []byte(tc.patch))
		}
	}
	f.Fuzz(func(t *testing.T, doc, patchText []byte) {
		ev, err := agui.DecodeEvent(append(append([]byte(`{"type":"STATE_DELTA","delta":`), patchText...), '}'))
		if err != nil {
			return
		}
		before := bytes.Clone(doc)
		got, err := jsonpatch.Apply(doc, ev.(*agui.StateDelta).Delta)
		if !bytes.Equal(doc, before) {
			t.Fatal("the input changed")
		}
		if err != nil {
			var pe *jsonpatch.Error
			if got != nil || !(errors.As(err, &pe) || errors.Is(err, jsonpatch.ErrInvalidDocument)) {
				t.Fatalf("got %q with %v", got, err)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("invalid result %q", got)
		}
	})
}
