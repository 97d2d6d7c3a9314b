package jsonpatch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
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

// FuzzDocument holds Apply's own JSON reader to encoding/json: with an empty
// patch, a document is accepted exactly when json.Valid accepts it, and what
// comes out reads, through encoding/json, as the same value as what went in.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,"x\u00e9\ud83d\ude00"],"b":{"":null},"a":true}`, `"\ud800"`, `[1,]`, `01`, "\"\xff\"", ` {} `, `{"0":1,"b":2,"1":3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) == 0 {
			return
		}
		got, err := jsonpatch.Apply(doc, agui.JSONPatch{})
		if (err == nil) != json.Valid(doc) {
			t.Fatalf("Apply says %v, json.Valid says %v", err, json.Valid(doc))
		}
		if err != nil {
			return
		}
		var want, have any
		if err := unmarshalNumbers(doc, &want); err != nil {
			t.Fatal(err)
		}
		if err := unmarshalNumbers(got, &have); err != nil {
			t.Fatalf("output %q: %v", got, err)
		}
		if !reflect.DeepEqual(want, have) {
			t.Fatalf("in  %q\nout %q", doc, got)
		}
	})
}

func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}
