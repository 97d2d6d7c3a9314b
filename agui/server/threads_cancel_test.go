//go:build !agui_noverify

package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/threads"
)

// Built with the verifier only: it is the verifier's record of an open
// message that makes a stopped run end in RUN_ERROR CANCELLED (without it
// the run ends RUN_FINISHED cancelled whatever is open).

// A run stopped by request is recorded as cancelled however it ended:
// RUN_FINISHED cancelled, or RUN_ERROR CANCELLED when a message was open
// (which keeps its code); a run that failed stays failed.
func TestThreadRecordsCancelledRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		open      bool // a message is open when the cancel comes
		fail      bool // the agent fails instead of stopping
		want      string
		code      string
		terminals string
	}{
		{"nothing open", false, false, threads.OutcomeCancelled, "", "RUN_FINISHED"},
		{"a message open", true, false, threads.OutcomeCancelled, string(agui.CodeCancelled), "RUN_ERROR"},
		{"failed", true, true, threads.OutcomeFailed, string(agui.CodeAgentError), "RUN_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				if tc.open {
					if _, err := rc.StartTextMessage(); err != nil {
						return server.Outcome{}, err
					}
				}
				close(started)
				<-ctx.Done()
				if tc.fail {
					return server.Outcome{}, errors.New("the model went away")
				}
				return server.Success(), nil
			})
			srv := threadServer(t, agent, server.ThreadConfig{Authorize: server.AllowAll})
			resp := postRun(t, srv.URL, "t", "r1")
			defer resp.Body.Close()
			<-started
			c, err := http.Post(srv.URL+"/agent/runs/r1/cancel", "application/json", nil)
			noErr(t, err)
			c.Body.Close()
			equal(t, true, http.StatusAccepted, c.StatusCode)
			frames := readSSE(t, resp.Body, -1)
			truth(t, true, len(frames) > 0 && strings.Contains(frames[len(frames)-1].data, `"type":"`+tc.terminals+`"`), "the stream ends %v", frames)
			var body struct {
				LiveRunID string        `json:"liveRunId"`
				Runs      []threads.Run `json:"runs"`
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // a hang guard only
				getJSON(t, srv.URL+"/agent/threads/t", http.StatusOK, &body)
				if body.LiveRunID == "" && len(body.Runs) == 1 && body.Runs[0].Outcome != threads.OutcomeRunning || time.Now().After(deadline) {
					break
				}
			}
			equal(t, true, 1, len(body.Runs))
			equal(t, false, tc.want, body.Runs[0].Outcome)
			equal(t, false, tc.code, body.Runs[0].Code)
		})
	}
}
