package conversation_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/internal/interop"
)

// FuzzApply folds arbitrary event sequences (of every type, from a small
// alphabet of ids, in any order, unverified) and checks that the reducer
// never panics, that its messages and state always encode as valid JSON,
// that copies handed out mid-stream stay as they were, and that NextInput
// either builds an input or refuses a resume with a *ResumeError.
func FuzzApply(f *testing.F) {
	f.Add([]byte{16, 0, 0, 0, 1, 0, 2, 0, 3})
	f.Add([]byte("\x04\x01\x02\x05\x01\x06\x01\x08\x01\x0b\x0c\x0d"))
	f.Add([]byte("\x10\x04\x00\x05\x00\x0b\x00\x08\x00\x0d\x00\x0e\x00\x09\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := conversation.New(nil, nil)
		var early []agui.Message
		var earlyJSON []byte
		for i, ev := range interop.Events(data) {
			c.Apply(ev)
			if i == 4 {
				early = c.Messages()
				earlyJSON = encode(t, early)
			}
		}
		encode(t, c.Messages())
		if early != nil && !bytes.Equal(encode(t, early), earlyJSON) {
			t.Fatal("a copy handed out earlier changed")
		}
		if !json.Valid(c.State()) {
			t.Fatalf("state %q", c.State())
		}
		if _, err := c.NextInput(conversation.InputOptions{}); err != nil && !errors.Is(err, conversation.ErrResume) {
			t.Fatalf("NextInput: %v", err)
		}
	})
}

func encode(t *testing.T, msgs []agui.Message) []byte {
	t.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.AppendJSON(buf); err != nil {
			t.Fatalf("message does not encode: %v", err)
		}
	}
	return buf
}
