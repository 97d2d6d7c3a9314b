package bench

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	cclient "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/client/sse"
	ctypes "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/types"
	"github.com/sirupsen/logrus"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// The community Go client sends "tools": null, "context": null and
// "forwardedProps": null for what it has none of (its fields have no
// omitempty), "parameters": null for a tool without a schema, and
// "messages": null for a run with no history (read as an empty list). A default
// handler accepts that, logging one line that names the repairs; with
// WithStrictInput it answers 400.
func TestCommunityClientAgainstDefaultHandler(t *testing.T) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("Hello, " + rc.LastUserText())
	})
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	for _, tc := range []struct {
		name  string
		input ctypes.RunAgentInput
		want  []string // the repairs the log line names
		text  string   // the reply
	}{
		{"no tools", ctypes.RunAgentInput{ThreadID: "t", RunID: "r1",
			Messages: []ctypes.Message{{ID: "u1", Role: ctypes.RoleUser, Content: "Ada"}}},
			[]string{"at /tools: converted legacy null to absent", "at /context: converted legacy null to absent", "at /forwardedProps: converted legacy null to absent"}, "Hello, Ada"},
		{"a tool without a schema", ctypes.RunAgentInput{ThreadID: "t", RunID: "r2",
			Messages: []ctypes.Message{{ID: "u1", Role: ctypes.RoleUser, Content: "Ada"}},
			Tools:    []ctypes.Tool{{Name: "ping", Description: "Ping."}}},
			[]string{"at /tools/0/parameters: converted legacy null to absent"}, "Hello, Ada"},
		{"no history", ctypes.RunAgentInput{ThreadID: "t", RunID: "r4", State: map[string]any{"n": 1}},
			[]string{"at /messages: read null as an empty list", "at /tools: converted legacy null to absent"}, "Hello, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, rec := testlog.NewRecorder()
			srv := httptest.NewServer(server.NewHandler(agent, server.WithLogger(logger)))
			defer srv.Close()
			c := cclient.NewClient(cclient.Config{Endpoint: srv.URL, Logger: quiet})
			defer c.Close()
			frames, errs, err := c.Stream(cclient.StreamOptions{Context: t.Context(), Payload: tc.input})
			if err != nil {
				t.Fatalf("the default handler refused the community client: %v", err)
			}
			var types []string
			var text strings.Builder
			for f := range frames {
				var ev struct{ Type, Delta string }
				if err := json.Unmarshal(f.Data, &ev); err != nil {
					t.Fatal(err)
				}
				types = append(types, ev.Type)
				text.WriteString(ev.Delta)
			}
			for err := range errs {
				t.Fatal(err)
			}
			if len(types) == 0 || types[len(types)-1] != "RUN_FINISHED" || text.String() != tc.text {
				t.Fatalf("events %v, text %q", types, text.String())
			}
			rs := rec.Records()
			if len(rs) != 1 {
				t.Fatalf("%d log records, want exactly 1: %+v", len(rs), rs)
			}
			r := rs[0]
			repairs, _ := r.Attrs["repairs"].([]string)
			if r.Level != slog.LevelInfo || r.Attrs["runId"] != tc.input.RunID {
				t.Fatalf("record %+v", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(strings.Join(repairs, "\n"), w) {
					t.Errorf("the log line's repairs %q lack %q", repairs, w)
				}
			}
		})
	}

	srv := httptest.NewServer(server.NewHandler(agent, server.WithStrictInput(), server.WithLogger(slog.New(slog.DiscardHandler))))
	defer srv.Close()
	c := cclient.NewClient(cclient.Config{Endpoint: srv.URL, Logger: quiet})
	defer c.Close()
	_, _, err := c.Stream(cclient.StreamOptions{Context: t.Context(), Payload: ctypes.RunAgentInput{ThreadID: "t", RunID: "r3",
		Messages: []ctypes.Message{{ID: "u1", Role: ctypes.RoleUser, Content: "Ada"}}}})
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("a strict handler answered the community client with %v, want 400", err)
	}
}
