package client

import (
	"reflect"
	"testing"

	"github.com/agui-go/sdk/agui"
)

// FuzzFastDelta checks the hot path against the general decoder: whenever
// fastDelta accepts a frame, lenient decoding gives the same event (the
// timestamp's value included) and no warning.
func FuzzFastDelta(f *testing.F) {
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"","delta":"日本語 ‍ é"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"b"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"} `))
	f.Add([]byte("{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xff\"}"))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"m","delta":"Hello"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":0,"messageId":"m","delta":""}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":999999999999999,"messageId":"m","delta":"x"}`))
	f.Add([]byte(`{"type":"TEXT_MESSAGE_CONTENT","timestamp":9007199254740993,"messageId":"m","delta":"x"}`))
	var s deltaSlab
	f.Fuzz(func(t *testing.T, frame []byte) {
		fast := s.fastDelta(frame)
		if fast == nil {
			return
		}
		ev, warns, err := agui.DecodeEventLenient(frame)
		if err != nil || len(warns) > 0 {
			t.Fatalf("fast path accepted %q; the decoder says %v %v", frame, warns, err)
		}
		if !reflect.DeepEqual(ev, fast) {
			t.Fatalf("fast path %+v, decoder %+v", fast, ev)
		}
	})
}

func TestFastDeltaShapes(t *testing.T) {
	var s deltaSlab
	for frame, ok := range map[string]bool{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello"}`:                           true,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\nb"}`:                            false, // an escape
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"s"}`:           false,
		`{"type":"TEXT_MESSAGE_CONTENT","delta":"x","messageId":"m"}`:                               false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}x`:                              false,
		`{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m","delta":"x"}`:                              false,
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xc3\"}":                false, // invalid UTF-8 is repaired by the decoder
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"tab\there\"}":           false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + string(make([]byte, 0)) + `"}`: true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"m","delta":"x"}`:     true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":0,"messageId":"m","delta":"x"}`:                 true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":999999999999999,"messageId":"m","delta":"x"}`:   true,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1000000000000000,"messageId":"m","delta":"x"}`:  false, // 16 digits
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":017,"messageId":"m","delta":"x"}`:               false, // not JSON
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":-5,"messageId":"m","delta":"x"}`:                false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1.5,"messageId":"m","delta":"x"}`:               false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":1e3,"messageId":"m","delta":"x"}`:               false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":,"messageId":"m","delta":"x"}`:                  false,
		`{"type":"TEXT_MESSAGE_CONTENT","timestamp":5}`:                                             false,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","timestamp":5,"delta":"x"}`:                 false,
	} {
		if got := s.fastDelta([]byte(frame)) != nil; got != ok {
			t.Errorf("%q: fast path %v, want %v", frame, got, ok)
		}
	}
}
