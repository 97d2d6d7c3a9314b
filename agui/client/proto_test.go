package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/agui/verify"
	"google.golang.org/protobuf/encoding/protowire"
)

// protoBody encodes JSON events, each strictly valid, as a protobuf body.
func protoBody(t testing.TB, docs ...string) []byte {
	t.Helper()
	var body []byte
	for _, d := range docs {
		ev, err := agui.DecodeEvent([]byte(d))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if body, err = protoframe.AppendFrame(body, ev); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	return body
}

// protoServer answers every POST with body under the Content-Type ct and
// passes the request to inspect.
func protoServer(t *testing.T, ct string, body []byte, inspect func(*http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inspect != nil {
			inspect(r)
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var (
	textStart   = `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`
	textContent = `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`
	textEnd     = `{"type":"TEXT_MESSAGE_END","messageId":"m"}`
)

// TestRunAccept: the client asks for SSE alone by default, and for protobuf
// with SSE as a lower-q fallback with WithProtobuf.
func TestRunAccept(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []client.Option
		want string
	}{
		{"default", nil, "text/event-stream"},
		{"protobuf", []client.Option{client.WithProtobuf()}, "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			srv := sseServer(t, frames(runStarted, runFinished), func(r *http.Request) { got = r.Header.Get("Accept") })
			c, _ := client.New(srv.URL, tt.opts...)
			if _, _, err := collect(t, c, input()); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Accept %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunReadsEitherBinding: the response's Content-Type decides the
// parser, whatever the client asked for; a parameter on the protobuf type
// does not send it to the SSE parser.
func TestRunReadsEitherBinding(t *testing.T) {
	body := protoBody(t, runStarted, textStart, textContent, textEnd, runFinished)
	want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	for _, tt := range []struct {
		name, ct string
		opts     []client.Option
	}{
		{"asked for SSE", protoframe.MediaType, nil},
		{"asked for protobuf", protoframe.MediaType, []client.Option{client.WithProtobuf()}},
		{"with a parameter", "Application/vnd.ag-ui.event+proto; charset=binary", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := client.New(protoServer(t, tt.ct, body, nil).URL, tt.opts...)
			types, warns, err := collect(t, c, input())
			if err != nil || len(warns) != 0 {
				t.Fatalf("err %v, warnings %v", err, warns)
			}
			if got := strings.Join(types, " "); got != want {
				t.Errorf("delivered %s, want %s", got, want)
			}
		})
	}
	t.Run("SSE answer to a protobuf request", func(t *testing.T) {
		c, _ := client.New(sseServer(t, frames(runStarted, runFinished), nil).URL, client.WithProtobuf())
		if types, _, err := collect(t, c, input()); err != nil || len(types) != 2 {
			t.Fatalf("%v %v", types, err)
		}
	})
}

// TestRunProtobufTruncated: a body that stops inside a frame (in the
// prefix, or in the message) fails as a truncation, after the events before
// it were delivered.
func TestRunProtobufTruncated(t *testing.T) {
	whole := protoBody(t, runStarted, textStart, textContent)
	last := len(protoBody(t, textContent))
	for _, cut := range []int{1, 3, 4, last - 1} {
		body := whole[:len(whole)-last+cut]
		c, _ := client.New(protoServer(t, protoframe.MediaType, body, nil).URL)
		types, _, err := collect(t, c, input())
		if !errors.Is(err, protoframe.ErrTruncated) || !errors.Is(err, verify.ErrTruncated) {
			t.Fatalf("cut at %d: err = %v, want both truncation errors", cut, err)
		}
		var se *client.StreamError
		if !errors.As(err, &se) || se.Index != 2 || len(types) != 2 {
			t.Errorf("cut at %d: %v after %v", cut, err, types)
		}
	}
	// A run that finished before the cut was not truncated, the body was.
	body := protoBody(t, runStarted, runFinished)
	c, _ := client.New(protoServer(t, protoframe.MediaType, append(body, 0, 0), nil).URL)
	if _, _, err := collect(t, c, input()); !errors.Is(err, protoframe.ErrTruncated) || errors.Is(err, verify.ErrTruncated) {
		t.Errorf("err = %v, want a framing truncation only", err)
	}
}

// TestRunProtobufFrameLimit: WithMaxFrame caps protobuf frames too.
func TestRunProtobufFrameLimit(t *testing.T) {
	big := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 2000) + `"}`
	body := protoBody(t, runStarted, textStart, big)
	c, _ := client.New(protoServer(t, protoframe.MediaType, body, nil).URL, client.WithMaxFrame(1024))
	types, _, err := collect(t, c, input())
	if !errors.Is(err, protoframe.ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
	if len(types) != 2 {
		t.Errorf("delivered %v", types)
	}
}

// TestRunProtobufUnknownArm: an envelope whose only arm is a field this SDK
// does not know is dropped with a warning, and the run goes on; a message
// that is not protobuf fails the stream at its frame.
func TestRunProtobufUnknownArm(t *testing.T) {
	// Field 99 holding a well-formed message: a future event type.
	future := protowire.AppendTag(nil, 99, protowire.BytesType)
	future = protowire.AppendBytes(future, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 42))
	body := protoBody(t, runStarted)
	body = protoframe.AppendMessage(body, future)
	body = append(body, protoBody(t, runFinished)...)
	c, _ := client.New(protoServer(t, protoframe.MediaType, body, nil).URL)
	types, warns, err := collect(t, c, input())
	if err != nil || strings.Join(types, " ") != "RUN_STARTED RUN_FINISHED" {
		t.Fatalf("%v %v", types, err)
	}
	if len(warns) != 1 || warns[0].Kind != agui.WarnDropped || warns[0].Index != 1 || !strings.Contains(warns[0].Message, "99") {
		t.Errorf("warnings %+v", warns)
	}

	body = protoBody(t, runStarted)
	body = protoframe.AppendMessage(body, []byte{0xff, 0xff})
	c, _ = client.New(protoServer(t, protoframe.MediaType, body, nil).URL)
	_, _, err = collect(t, c, input())
	var de *agui.DecodeError
	var se *client.StreamError
	if !errors.As(err, &de) || !errors.As(err, &se) || se.Index != 1 {
		t.Errorf("err = %v, want a DecodeError at frame 1", err)
	}
}
