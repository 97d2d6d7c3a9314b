package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/internal/conformance"
)

// memoryTransport answers every request with one SSE body, without a
// network, so the fuzzer exercises Client.Run itself.
type memoryTransport []byte

func (m memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return answer(r, "text/event-stream", m), nil
}

// protoTransport is memoryTransport for a protobuf body.
type protoTransport []byte

func (m protoTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return answer(r, protoframe.MediaType, m), nil
}

func answer(r *http.Request, ct string, body []byte) *http.Response {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {ct}},
		Body:       io.NopCloser(bytes.NewReader(body)),
		Request:    r,
	}
}

// FuzzRun feeds arbitrary SSE bodies through Client.Run. It must not
// panic; it yields at most one error, as the last pair; a frame yields at
// most three events (a chunk that opens, continues and closes), so what a
// body can make the client hold is bounded by the body; and every event it
// delivers encodes, so application code never sees a value it cannot send
// back.
func FuzzRun(f *testing.F) {
	fixtures, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, fx := range fixtures {
		var b bytes.Buffer
		for _, ev := range fx.Stream {
			b.WriteString("data: ")
			json.Compact(&b, ev)
			b.WriteString("\n\n")
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("data: {\"type\":\"THINKING_START\"}\n\ndata: {\"type\":\"THINKING_TEXT_MESSAGE_CONTENT\",\"delta\":\"x\"}\r\n\r\n"))
	f.Add([]byte(": keep-alive\n\nevent: x\ndata: {\"type\":\n data: \"RUN_STARTED\"}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		events := fuzzRun(t, memoryTransport(body))
		frames := bytes.Count(body, []byte("data")) + 1
		if events > 3*frames {
			t.Fatalf("%d events from at most %d frames", events, frames)
		}
	})
}

// FuzzRunProtobuf is FuzzRun for protobuf bodies: arbitrary bytes answered
// as application/vnd.ag-ui.event+proto. The same properties hold; a frame
// is at least its 4-byte prefix, which bounds the frames a body holds.
func FuzzRunProtobuf(f *testing.F) {
	fixtures, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, fx := range fixtures {
		if body, err := protoStream(fx); err == nil {
			f.Add(body)
			f.Add(body[:len(body)-1])
		}
	}
	f.Add([]byte{0, 0, 0, 5, 0x9a, 0x06, 0x02, 0x08, 0x2a}) // field 99: an unknown arm
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		events := fuzzRun(t, protoTransport(body))
		if frames := len(body)/4 + 1; events > 3*frames {
			t.Fatalf("%d events from at most %d frames", events, frames)
		}
	})
}

// fuzzRun runs a client over rt and checks what every body must give: at
// most one error, last, with no event; every delivered event encodes. It
// returns the number of events.
func fuzzRun(t *testing.T, rt http.RoundTripper) int {
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	c, err := client.New("http://fuzz.invalid/agent",
		client.WithHTTPClient(&http.Client{Transport: rt}),
		client.WithMaxFrame(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	events, errs := 0, 0
	for d, err := range c.Run(context.Background(), in) {
		ev := d.Event
		if errs > 0 {
			t.Fatalf("a pair after the error: %v %v", ev, err)
		}
		if err != nil {
			if ev != nil {
				t.Fatalf("an error with an event: %v", ev)
			}
			errs++
			continue
		}
		events++
		if _, err := agui.AppendEvent(nil, ev); err != nil {
			t.Fatalf("a delivered %s does not encode: %v", ev.Type(), err)
		}
	}
	return events
}
