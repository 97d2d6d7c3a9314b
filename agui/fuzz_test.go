package agui

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
)

// seedFixtures adds every shared fixture of the given definitions (valid and
// invalid) to the fuzz corpus.
func seedFixtures(f *testing.F, keep func(def string) bool) {
	fixtures := spectest.RequireFixtures(f)
	for _, fx := range fixtures {
		if !keep(fx.Definition) {
			continue
		}
		data, err := os.ReadFile(fx.Path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzDecodeEvent: decoding never panics; what strict decoding accepts
// re-encodes, decodes again and re-encodes to the same bytes; what lenient
// decoding accepts re-encodes to a document strict decoding accepts (the
// repairs leave nothing the schema rejects).
func FuzzDecodeEvent(f *testing.F) {
	seedFixtures(f, func(def string) bool { return def != "RunAgentInput" && def != "Message" })
	f.Add([]byte(`{"type":"FUTURE","x":[1,{"y":null}]}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_END","messageId":null,"messageId":"m","type":"TEXT_MESSAGE_END"}`))
	f.Add([]byte(`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"x"},"outcome":{"type":"success"}}`))
	var stream StreamDecoder // shared by the inputs, so its cache carries over
	f.Fuzz(func(t *testing.T, data []byte) {
		// A StreamDecoder returns what DecodeEventLenient returns.
		ev1, w1, err1 := DecodeEventLenient(data)
		ev2, w2, err2 := stream.DecodeEventLenient(data)
		if !reflect.DeepEqual(ev1, ev2) || !reflect.DeepEqual(w1, w2) || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("StreamDecoder differs:\n%#v %v %v\n%#v %v %v", ev1, w1, err1, ev2, w2, err2)
		}
		if ev, err := DecodeEvent(data); err == nil {
			out := mustAppend(t, ev)
			ev2, err := DecodeEvent(out)
			if err != nil {
				t.Fatalf("our own encoding does not decode: %v\n%s", err, out)
			}
			if out2 := mustAppend(t, ev2); !bytes.Equal(out, out2) {
				t.Fatalf("unstable:\n%s\n%s", out, out2)
			}
		}
		if ev, _, err := DecodeEventLenient(data); err == nil {
			out := mustAppend(t, ev)
			if _, err := DecodeEvent(out); err != nil {
				t.Fatalf("lenient result is not strictly valid: %v\n%s\nfrom %s", err, out, data)
			}
		}
	})
}

// FuzzDecodeRunAgentInput is FuzzDecodeEvent for request bodies.
func FuzzDecodeRunAgentInput(f *testing.F) {
	seedFixtures(f, func(def string) bool { return def == "RunAgentInput" })
	f.Add([]byte(`{"threadId":"t","runId":"r","state":null,"messages":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if in, err := DecodeRunAgentInput(data); err == nil {
			out, err := in.AppendJSON(nil)
			if err != nil {
				t.Fatalf("decoded input does not encode: %v", err)
			}
			in2, err := DecodeRunAgentInput(out)
			if err != nil {
				t.Fatalf("our own encoding does not decode: %v\n%s", err, out)
			}
			out2, _ := in2.AppendJSON(nil)
			if !bytes.Equal(out, out2) {
				t.Fatalf("unstable:\n%s\n%s", out, out2)
			}
		}
		if in, _, err := DecodeRunAgentInputLenient(data); err == nil {
			out, err := in.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeRunAgentInput(out); err != nil {
				t.Fatalf("lenient result is not strictly valid: %v\n%s", err, out)
			}
		}
	})
}

func mustAppend(t *testing.T, ev Event) []byte {
	t.Helper()
	out, err := ev.AppendJSON(nil)
	if err != nil {
		t.Fatalf("a decoded event does not encode: %v", err)
	}
	return out
}
