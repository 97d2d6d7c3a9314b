package bench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	cclient "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/client/sse"
	cevents "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/events"
	ctypes "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/types"
	"github.com/sirupsen/logrus"

	"github.com/agui-go/sdk/agui/server"
)

// The community Go client, the most used Go AG-UI client, writes every
// optional member of its input ("tools":null among them). A handler with
// the defaults serves it (issue 23): the run streams to its end, and the
// server logs exactly one line, naming the nulls it read as absent. (A nil
// Messages is sent as "messages":null and stays a 400: the member is
// required, and a conversation always has its user's message.)
func TestCommunityClientAgainstDefaultHandler(t *testing.T) {
	var logs bytes.Buffer
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("hello from Go"); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), nil
	})
	srv := httptest.NewServer(server.NewHandler(agent, server.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))))
	defer srv.Close()

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	c := cclient.NewClient(cclient.Config{Endpoint: srv.URL, Logger: quiet})
	n, err := communityRead(context.Background(), c, cevents.NewEventDecoder(quiet), ctypes.RunAgentInput{
		ThreadID: threadID, RunID: runID,
		Messages: []ctypes.Message{{ID: "u1", Role: ctypes.RoleUser, Content: "hi"}},
	})
	if err != nil {
		t.Fatalf("after %d events: %v", n, err)
	}
	if n != 5 { // RUN_STARTED, the text message's three events, RUN_FINISHED
		t.Fatalf("%d events, want 5", n)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "legacy nulls") || !strings.Contains(lines[0], "tools") {
		t.Fatalf("want one log line naming the nulls, got:\n%s", logs.String())
	}
}
