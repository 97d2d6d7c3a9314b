package natslog_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A reader on another replica counts for detach (issue 20): the client
// that started a run on A leaves, one on B follows it, and A does not
// cancel the run when its grace is over. Once B's reader leaves too, the
// run is cancelled a grace later; without B's reader, a grace after A's
// client left (and with no Detach at all, at once).
func TestDetachCountsReadersOnOtherReplicas(t *testing.T) {
	const grace = 300 * time.Millisecond
	agent := pacedAgent(60, 50*time.Millisecond) // 3s, ten graces
	for _, tc := range []struct {
		name   string
		grace  time.Duration
		follow time.Duration // how long B's reader reads (0: no reader on B; <0: to the end)
		want   string        // how the run ends
	}{
		{"followed on B to the end", grace, -1, "RUN_FINISHED"},
		{"followed on B for a while", grace, time.Second, `"code":"CANCELLED"`},
		{"followed on B, no Detach", 0, -1, "RUN_FINISHED"},
		{"not followed", grace, 0, `"code":"CANCELLED"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			natsURL := startNATS(t)
			la, _ := newLog(t, natsURL, steadyLease)
			lb, _ := newLog(t, natsURL, steadyLease)
			a := serveReplicaGrace(t, la, "a", agent, tc.grace)
			b := serveReplicaGrace(t, lb, "b", agent, tc.grace)
			resp := a.post(t, "t", "r")
			head := readSSE(t, resp.Body, 3)
			if tc.follow != 0 {
				tail := b.events(t, "r", head[len(head)-1].id)
				defer tail.Body.Close()
				if tc.follow > 0 {
					time.AfterFunc(tc.follow, func() { tail.Body.Close() })
				}
				if len(readSSE(t, tail.Body, 1)) != 1 {
					t.Fatal("B's reader got nothing")
				}
			}
			resp.Body.Close() // A's client leaves
			// The run's end, as the log has it (read on B).
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/agent/runs/r/events", nil)
			done := make(chan string, 1)
			go func() {
				// After the run ended: a reader counts while it reads.
				for {
					info, err := lb.Info(ctx, "r")
					if err != nil || info.Ended {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				r, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- err.Error()
					return
				}
				defer r.Body.Close()
				data, _ := io.ReadAll(r.Body)
				done <- string(data)
			}()
			all := <-done
			frames := strings.Split(strings.TrimSpace(all), "\n\n")
			last := frames[len(frames)-1]
			if !strings.Contains(last, tc.want) {
				t.Fatalf("the run ended %s, want %s", last, tc.want)
			}
		})
	}
}
