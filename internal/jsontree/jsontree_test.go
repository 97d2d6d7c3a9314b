package jsontree

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecode(t *testing.T) {
	got, err := Decode([]byte(`{"a":[1.50,-0,1e400,"x",true,null],"b":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{json.Number("1.50"), json.Number("-0"), json.Number("1e400"), "x", true, nil},
		"b": map[string]any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if _, err := Decode([]byte(`{"a":`)); err == nil {
		t.Fatal("a cut document decoded")
	}
	if _, err := Decode(nil); err == nil {
		t.Fatal("no document decoded")
	}
}
