package natslog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// A run whose events expired answers 410 RUN_EXPIRED, as the memory log's
// forgotten runs do, for Remember after its events went; then 404, as a run
// never seen. A run id never seen is 404 throughout.
func TestExpiredRun(t *testing.T) {
	const ttl, remember = time.Second, 3 * time.Second
	nc, err := nats.Connect(startNATS(t))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 500 * time.Millisecond, TTL: ttl, Remember: remember, Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := serveReplica(t, l, "a", gatedAgent(5, -1, nil))

	// Every event is appended after start, so none expires before
	// start+TTL, and the description (written again with the last event)
	// not before start+TTL+Remember.
	start := time.Now()
	resp := r.post(t, "t", "short")
	if frames := readSSE(t, resp.Body, -1); len(frames) != 9 {
		t.Fatalf("the run sent %d events", len(frames))
	}
	resp.Body.Close()
	resp = r.events(t, "short", "")
	if n := len(readSSE(t, resp.Body, -1)); n != 9 {
		t.Fatalf("a read right after the run: %d events", n)
	}
	resp.Body.Close()

	// Poll each answer until it changes; the deadlines are generous bounds
	// on the server's expiry timers, not the behaviour under test.
	await := func(want int, wantCode string, within time.Duration) time.Duration {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			code, body := status(t, r.url+"/agent/runs/short/events")
			if code == want {
				if body != wantCode {
					t.Fatalf("%d with code %q, want %q", code, body, wantCode)
				}
				return time.Since(start)
			}
			if code != http.StatusOK && code != http.StatusGone {
				t.Fatalf("status %d %s while waiting for %d", code, body, want)
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %d after %v, want %d", code, within, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	gone := await(http.StatusGone, server.HTTPCodeRunExpired, ttl+5*time.Second)
	if gone < ttl {
		t.Fatalf("410 after %v, before the TTL %v", gone, ttl)
	}
	if code, body := status(t, r.url+"/agent/runs/never-seen/events"); code != http.StatusNotFound {
		t.Fatalf("a run never seen: %d %s", code, body)
	}
	forgot := await(http.StatusNotFound, server.HTTPCodeRunNotFound, ttl+remember+5*time.Second)
	if forgot < ttl+remember {
		t.Fatalf("404 after %v, before TTL+Remember %v", forgot, ttl+remember)
	}
}

// status GETs url and returns its status and the error code of its body.
func status(t *testing.T, url string) (int, string) {
	t.Helper()
	// A run that looks live but sends nothing would hold the answer open:
	// the timeout turns that into a failure.
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %d, then %v", url, resp.StatusCode, err)
	}
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	return resp.StatusCode, body.Error.Code
}

// A live run whose first events outlived the TTL keeps the rest: Info's
// First moves past the dropped events, a read from before it fails with
// ErrExpired, and a read from there on gets what was kept.
func TestPartlyExpiredRun(t *testing.T) {
	nc, err := nats.Connect(startNATS(t))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 300 * time.Millisecond, TTL: time.Second, Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "long", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 1; i <= 3; i++ {
		if _, err := w.Append(fmt.Appendf(nil, `{"n":%d}`, i), false); err != nil {
			t.Fatal(err)
		}
	}
	var info runlog.Info
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := w.Append([]byte(`{"n":"later"}`), false); err != nil {
			t.Fatal(err)
		}
		if info, err = l.Info(ctx, "long"); err != nil {
			t.Fatal(err)
		}
		if info.First > 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first events never expired: %+v", info)
		}
	}
	if _, err := read(t, l, "long", 0); !errors.Is(err, runlog.ErrExpired) {
		t.Fatalf("a read from the start: %v", err)
	}
	if _, err := w.Append([]byte(`{"end":true}`), true); err != nil {
		t.Fatal(err)
	}
	got, err := read(t, l, "long", info.First-1)
	if err != nil || len(got) == 0 || got[0].Seq != info.First || !got[len(got)-1].Terminal {
		t.Fatalf("a read from the first kept: %v %+v", err, got)
	}
}
