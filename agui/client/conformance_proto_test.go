package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/protoframe"
	"github.com/agui-go/sdk/internal/conformance"
)

// TestConformanceProtobuf serves every conformance stream that the
// protobuf binding can carry (each element a strictly valid 1.0 event) as
// protobuf over loopback HTTP, and checks that the client delivers the same
// events, warnings, error, messages and state as from the SSE version. The
// other streams exist to exercise what only JSON can say (unknown members,
// legacy nulls, retired event names, malformed frames); protobuf has no
// way to send them.
func TestConformanceProtobuf(t *testing.T) {
	fixtures, err := conformance.Load()
	if err != nil {
		t.Fatal(err)
	}
	carried := 0
	for _, f := range fixtures {
		body, why := protoStream(f)
		if why != nil {
			t.Logf("%s: not representable in protobuf: %v", f.Name, why)
			continue
		}
		carried++
		t.Run(f.Name, func(t *testing.T) {
			viaSSE := runFixture(t, f, conformance.Serve(t, f).URL)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", protoframe.MediaType)
				w.Write(body)
			}))
			defer srv.Close()
			viaProto := runFixture(t, f, srv.URL, client.WithProtobuf())
			if viaSSE != viaProto {
				t.Errorf("the bindings differ\nSSE:\n%s\nprotobuf:\n%s", viaSSE, viaProto)
			}
		})
	}
	t.Logf("%d of %d streams carried in protobuf", carried, len(fixtures))
	if carried < len(fixtures)/3 {
		t.Errorf("only %d of %d streams could be sent as protobuf", carried, len(fixtures))
	}
}

// protoStream encodes f's stream as a protobuf body, or says why it cannot.
func protoStream(f conformance.Fixture) ([]byte, error) {
	var body []byte
	for i, raw := range f.Stream {
		ev, err := agui.DecodeEvent(raw)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		start := len(body)
		if body, err = protoframe.AppendFrame(body, ev); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		// An element the protobuf binding cannot say exactly (a member it
		// has no field for) would change what the client sees.
		back, err := agui.DecodeEventProto(body[start+4:])
		if err != nil {
			return nil, fmt.Errorf("element %d does not come back: %w", i, err)
		}
		a, _ := agui.AppendEvent(nil, ev)
		b, _ := agui.AppendEvent(nil, back)
		if !bytes.Equal(a, b) {
			return nil, fmt.Errorf("element %d comes back as %s", i, b)
		}
	}
	return body, nil
}

// runFixture runs f through an Agent at url, as TestConformance does, and
// renders everything observed as text for comparison.
func runFixture(t *testing.T, f conformance.Fixture, url string, extra ...client.Option) string {
	t.Helper()
	var out bytes.Buffer
	opts := append([]client.Option{client.WithWarnings(func(w agui.Warning) {
		fmt.Fprintf(&out, "warning %d %s: %s\n", w.Index, w.Kind, w.Message)
	})}, extra...)
	if v := f.Client.MaxProtocolVersion; v != "" {
		opts = append(opts, client.WithMaxProtocolVersion(v))
	}
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var agentOpts []client.ThreadOption
	var params client.RunParams
	if f.Input != nil {
		in, _, err := client.DecodeInput(f.Input)
		if err != nil {
			t.Fatal(err)
		}
		agentOpts = append(agentOpts, client.WithMessages(in.Messages...), client.WithState(in.State))
		params = client.RunParams{Tools: in.Tools, Context: in.Context, ForwardedProps: in.ForwardedProps, Resume: in.Resume}
	}
	a := c.NewThread(agentOpts...)
	a.Subscribe(func(d client.Delivery) {
		ev := d.Event
		b, _ := agui.AppendEvent(nil, ev)
		fmt.Fprintf(&out, "event %s\n", b)
	})
	res, err := a.Run(context.Background(), params)
	fmt.Fprintf(&out, "error %v\n", err)
	if res != nil {
		fmt.Fprintf(&out, "outcome %v, %d result warnings\n", res.Outcome.Status, len(res.Warnings))
	}
	msgs, _ := json.Marshal(a.Messages())
	fmt.Fprintf(&out, "messages %s\nstate %s\n", msgs, a.State())
	return out.String()
}
