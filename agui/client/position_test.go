package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/server"
)

// chunked streams its text as chunks: the first expands into a start and
// its content, and the terminal event closes the message first, so two
// frames deliver two events each.
func chunked() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		for i, delta := range []string{"one ", "two ", "three"} {
			ch := &agui.TextMessageChunk{Delta: &delta}
			if i == 0 {
				ch.MessageID = new("m")
			}
			if err := rc.Emit(ch); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), nil
	})
}

// deliveries runs seq to its end and returns what it delivered.
func deliveries(t *testing.T, seq func(func(client.Delivery, error) bool)) []client.Delivery {
	t.Helper()
	var out []client.Delivery
	for d, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func eventJSON(t *testing.T, ds []client.Delivery) []string {
	t.Helper()
	out := make([]string, len(ds))
	for i, d := range ds {
		b, err := d.Event.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = d.Pos.String() + " " + string(b)
	}
	return out
}

// A durable run numbers its frames: every delivery carries its frame's
// number, the events one frame expands into are told apart by Part, and
// Resume given any delivered position delivers exactly what followed it,
// at the same positions.
func TestPositionAndResume(t *testing.T) {
	srv := httptest.NewServer(durableMux(chunked(), 0))
	defer srv.Close()
	c, _ := client.New(srv.URL + "/agent")
	all := deliveries(t, c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r1"}))
	want := []client.Position{{Seq: 1}, {Seq: 2}, {Seq: 2, Part: 1}, {Seq: 3}, {Seq: 4}, {Seq: 5}, {Seq: 5, Part: 1}}
	if len(all) != len(want) {
		t.Fatalf("%d deliveries: %v", len(all), eventJSON(t, all))
	}
	for i, d := range all {
		if d.Pos != want[i] {
			t.Fatalf("delivery %d at %v, want %v: %v", i, d.Pos, want[i], eventJSON(t, all))
		}
	}
	got := eventJSON(t, all)
	for i, d := range all {
		rest := eventJSON(t, deliveries(t, c.Resume(context.Background(), "r1", d.Pos)))
		if len(rest) != len(all)-i-1 {
			t.Fatalf("resume after %v: %v, want %v", d.Pos, rest, got[i+1:])
		}
		for j := range rest {
			if rest[j] != got[i+1+j] {
				t.Fatalf("resume after %v: %v, want %v", d.Pos, rest, got[i+1:])
			}
		}
	}
	// A thread's result names the last position.
	th := c.NewThread(client.WithThreadID("t"))
	res, err := th.Run(context.Background(), client.RunParams{RunID: "r2"})
	if err != nil || res.Last != want[len(want)-1] {
		t.Fatalf("last %v, want %v (%v)", res.Last, want[len(want)-1], err)
	}
}

// A server that numbers nothing gives every event Seq 0.
func TestPositionWithoutIDs(t *testing.T) {
	srv := httptest.NewServer(server.NewHandler(chunked()))
	defer srv.Close()
	c, _ := client.New(srv.URL)
	for _, d := range deliveries(t, c.Run(context.Background(), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})) {
		if d.Pos.Seq != 0 {
			t.Fatalf("%v delivered at %v", d.Event.Type(), d.Pos)
		}
	}
}

func TestPositionText(t *testing.T) {
	for _, tc := range []struct {
		text string
		pos  client.Position
		ok   bool
	}{
		{"0", client.Position{}, true},
		{"12", client.Position{Seq: 12}, true},
		{"12.3", client.Position{Seq: 12, Part: 3}, true},
		{"", client.Position{}, false},
		{"-1", client.Position{}, false},
		{"1.", client.Position{}, false},
		{"1.-2", client.Position{}, false},
		{"x", client.Position{}, false},
	} {
		p, err := client.ParsePosition(tc.text)
		if (err == nil) != tc.ok || p != tc.pos {
			t.Errorf("ParsePosition(%q) = %v, %v", tc.text, p, err)
		}
		if !tc.ok {
			if !errors.Is(err, client.ErrPosition) {
				t.Errorf("ParsePosition(%q): %v, want ErrPosition", tc.text, err)
			}
			continue
		}
		if tc.pos.String() != tc.text {
			t.Errorf("%v.String() = %q, want %q", tc.pos, tc.pos.String(), tc.text)
		}
		var back struct{ At client.Position }
		b, _ := json.Marshal(struct{ At client.Position }{tc.pos})
		if err := json.Unmarshal(b, &back); err != nil || back.At != tc.pos {
			t.Errorf("%s read back as %v (%v)", b, back.At, err)
		}
	}
	if !(client.Position{Seq: 2}).After(client.Position{Seq: 1, Part: 5}) || (client.Position{Seq: 2}).After(client.Position{Seq: 2}) {
		t.Error("After does not order by Seq, then Part")
	}
}
