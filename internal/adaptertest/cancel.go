package adaptertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/internal/stall"
)

// recorder reports how each run's agent returned.
type recorder struct {
	inner server.Agent[server.NoState]
	errs  chan error
}

func (r *recorder) Run(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
	out, err := r.inner.Run(ctx, rc)
	r.errs <- err
	return out, err
}

// Cancellation serves inner, posts input to it and goes away once text
// streams: the request to the provider, r (which must hold its response
// open), must end within 100 ms of the time the process could run (a loaded
// machine's stalls do not count, see stall.Probe), and the agent must return
// cancelled by the client's disconnect.
func Cancellation(t testing.TB, r *Replay, inner server.Agent[server.NoState], input string) {
	t.Helper()
	cancellation(t, r, inner, input, 100*time.Millisecond)
}

// CancellationReaches is Cancellation without the time bound: the test
// waits for the provider to see its request end (the event, with a hang
// guard) and logs how long that took, asserting nothing of the clock.
func CancellationReaches(t testing.TB, r *Replay, inner server.Agent[server.NoState], input string) {
	t.Helper()
	cancellation(t, r, inner, input, 0)
}

func cancellation(t testing.TB, r *Replay, inner server.Agent[server.NoState], input string, bound time.Duration) {
	t.Helper()
	agent := &recorder{inner: inner, errs: make(chan error, 1)}
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := Must(http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewBufferString(input)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for frame, err := range sse.Frames(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if ev, _ := agui.DecodeEvent(frame); ev != nil && ev.Type() == agui.EventTypeTextMessageContent {
			break
		}
	}
	abort := time.Now()
	stalled := stall.Probe()
	cancel()
	select {
	case seen := <-r.Aborted:
		d, stall := seen.Sub(abort), stalled()
		t.Logf("the provider saw its request end %v after the client aborted, the process stalled %v of it", d, stall)
		if bound > 0 && d-stall > bound {
			t.Errorf("the provider request ended %v after the client aborted (%v of it not stalled), want within %v", d, d-stall, bound)
		}
	case <-time.After(30 * time.Second): // a hang guard
		stalled()
		t.Fatal("the provider request was not aborted")
	}
	select {
	case err := <-agent.errs:
		if !server.IsCancelled(err) || !errors.Is(err, server.ErrClientDisconnected) {
			t.Errorf("the agent returned %v, want cancelled by the client's disconnect", err)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("the agent did not return")
	}
	io.Copy(io.Discard, resp.Body)
}
