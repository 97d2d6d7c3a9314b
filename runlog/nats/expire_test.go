package natslog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// A run whose events expired answers 410 RUN_EXPIRED, as the memory log's
// forgotten runs do, for Remember after its events went; then 404, as a run
// never seen. A run id never seen is 404 throughout. The run must be read
// whole before its TTL passes (and must not lose its lease meanwhile): a
// test stalled that long on a loaded machine is tried again with longer
// durations.
func TestExpiredRun(t *testing.T) {
	scaled(t, func(t *testing.T, k time.Duration) string {
		ttl, remember := time.Second*k, 3*time.Second*k
		nc, err := nats.Connect(startNATS(t))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 500 * time.Millisecond * k, TTL: ttl, Remember: remember, Memory: true, Window: -1})
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
		frames := readSSE(t, resp.Body, -1)
		resp.Body.Close()
		if len(frames) > 0 && strings.Contains(frames[len(frames)-1].data, `"code":"RUN_LOST"`) {
			return "the run lost its lease while it ran"
		}
		if len(frames) != 9 {
			t.Fatalf("the run sent %d events", len(frames))
		}
		// A read right after the run gets it whole. It has the TTL to
		// answer: a later one may race the events' expiry and hang (see
		// await), and is tried again at a larger scale.
		code, body, n, err := get(r.url+"/agent/runs/short/events", ttl)
		if (err != nil || code != http.StatusOK || n != 9) && time.Since(start) >= ttl {
			return fmt.Sprintf("the run was read again only %v after it started, past its TTL", time.Since(start))
		}
		if err != nil || code != http.StatusOK || n != 9 {
			t.Fatalf("a read right after the run: %d %s, %d events, %v", code, body, n, err)
		}

		// Poll each answer until it changes; the deadlines are generous bounds
		// on the server's expiry timers, not the behaviour under test. A poll
		// that hangs is given up after a third of Remember and asked again:
		// a read that starts just before the events expire follows a subject
		// whose messages went meanwhile, and waits for more (natslog.Read's
		// own race, which a loaded machine widens); one that hangs on every
		// try still fails at the deadline.
		await := func(want int, wantCode agui.HTTPCode, within time.Duration) (time.Duration, string) {
			t.Helper()
			deadline := time.Now().Add(within)
			for {
				code, body, _, err := get(r.url+"/agent/runs/short/events", remember/3)
				switch {
				case err != nil:
					t.Logf("a read hung: %v", err)
				case code == want:
					if body != string(wantCode) {
						t.Fatalf("%d with code %q, want %q", code, body, wantCode)
					}
					return time.Since(start), ""
				case code == http.StatusNotFound && want == http.StatusGone && time.Since(start) >= ttl+remember:
					// The 410 lasts Remember: a test stalled that long
					// missed it.
					return 0, fmt.Sprintf("the run was forgotten before a poll saw it expired, %v after it started", time.Since(start))
				case code != http.StatusOK && code != http.StatusGone:
					t.Fatalf("status %d %s while waiting for %d", code, body, want)
				}
				if time.Now().After(deadline) {
					t.Fatalf("still %d after %v, want %d", code, within, want)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		gone, slow := await(http.StatusGone, agui.HTTPCodeRunExpired, ttl+30*time.Second)
		if slow != "" {
			return slow
		}
		if gone < ttl {
			t.Fatalf("410 after %v, before the TTL %v", gone, ttl)
		}
		if code, body, _, err := get(r.url+"/agent/runs/never-seen/events", 30*time.Second); err != nil || code != http.StatusNotFound {
			t.Fatalf("a run never seen: %d %s %v", code, body, err)
		}
		forgot, _ := await(http.StatusNotFound, agui.HTTPCodeRunNotFound, ttl+remember+30*time.Second)
		if forgot < ttl+remember {
			t.Fatalf("404 after %v, before TTL+Remember %v", forgot, ttl+remember)
		}
		return ""
	})
}

// get GETs url within timeout and returns its status, the error code of
// its body and, for a 200, how many SSE events the body holds. A run that
// looks live but sends nothing would hold the answer open: the timeout
// turns that into an error.
func get(url string, timeout time.Duration) (code int, errCode string, events int, err error) {
	resp, err := (&http.Client{Timeout: timeout}).Get(url)
	if err != nil {
		return 0, "", 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "", 0, fmt.Errorf("GET %s: %d, then %w", url, resp.StatusCode, err)
	}
	if resp.StatusCode == http.StatusOK {
		for line := range bytes.Lines(data) {
			if bytes.HasPrefix(line, []byte("data: ")) {
				events++
			}
		}
		return resp.StatusCode, "", events, nil
	}
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	return resp.StatusCode, body.Error.Code, 0, nil
}

// A live run whose first events outlived the TTL keeps the rest: Info's
// First moves past the dropped events, a read from before it fails with
// ErrExpired, and a read from there on gets what was kept. The later events
// are appended half a TTL after the first ones, so that the checks have half
// a TTL between the expiry of the first and that of the later ones; a test
// stalled longer than that on a loaded machine (or whose run lost its lease
// meanwhile) is tried again with longer durations.
func TestPartlyExpiredRun(t *testing.T) {
	scaled(t, func(t *testing.T, k time.Duration) string {
		ttl := time.Second * k
		nc, err := nats.Connect(startNATS(t))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: 300 * time.Millisecond * k, TTL: ttl, Memory: true, Window: -1})
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
		appendOK := func(data string, terminal bool) bool {
			t.Helper()
			_, err := w.Append([]byte(data), terminal)
			if err != nil && !errors.Is(err, runlog.ErrLeaseLost) {
				t.Fatal(err)
			}
			return err == nil
		}
		const lost = "the run lost its lease while it ran"
		for i := 1; i <= 3; i++ {
			if !appendOK(fmt.Sprintf(`{"n":%d}`, i), false) {
				return lost
			}
		}
		time.Sleep(ttl / 2) // not a wait for anything: the gap between the two lots
		laterAt := time.Now()
		for i := 4; i <= 6; i++ {
			if !appendOK(fmt.Sprintf(`{"n":%d}`, i), false) {
				return lost
			}
		}
		// tooLate reports whether the later events may have expired too.
		tooLate := func() string {
			if d := time.Since(laterAt); d >= ttl {
				return fmt.Sprintf("the checks ended %v after the later events were appended, past the TTL %v", d, ttl)
			}
			return ""
		}
		var info runlog.Info
		for deadline := time.Now().Add(30*time.Second + ttl); ; time.Sleep(20 * time.Millisecond) { // a hang guard
			if info, err = l.Info(ctx, "long"); err != nil {
				if slow := tooLate(); slow != "" {
					return slow
				}
				t.Fatal(err)
			}
			if info.First > 3 {
				break
			}
			// A stall past the later events' TTL may have expired them as
			// well before this look (Info then has no event of the run).
			if slow := tooLate(); slow != "" {
				return slow
			}
			if time.Now().After(deadline) {
				t.Fatalf("the first events never expired: %+v", info)
			}
		}
		if info.First != 4 || info.Last != 6 || info.Ended {
			if slow := tooLate(); slow != "" {
				return slow
			}
			t.Fatalf("after the first events expired: %+v, want events 4 to 6 kept", info)
		}
		if _, err := read(t, l, "long", 0); !errors.Is(err, runlog.ErrExpired) {
			t.Fatalf("a read from the start: %v", err)
		}
		if !appendOK(`{"end":true}`, true) {
			return lost
		}
		got, err := read(t, l, "long", info.First-1)
		if err != nil || len(got) != 4 || got[0].Seq != info.First || !got[3].Terminal {
			if slow := tooLate(); slow != "" {
				return slow
			}
			t.Fatalf("a read from the first kept: %v %+v", err, got)
		}
		return ""
	})
}
