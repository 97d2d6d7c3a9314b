package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	cevents "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/core/events"
	csse "github.com/ag-ui-protocol/ag-ui/sdks/community/go/pkg/encoding/sse"

	"github.com/agui-go/sdk/agui/server"
)

// The payload every benchmark streams: one assistant message of deltas
// (the same text as the client and interop benchmarks in the SDK module),
// inside a run of thread "t", run "r".
const (
	threadID  = "t"
	runID     = "r"
	messageID = "msg-1"
	delta     = "Hello, world! "
	runDeltas = 1000
	runInput  = `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}`
)

// escapedDelta is the escape-heavy payload: a delta with everything JSON
// must escape or check (a line break, a tab, quotes, backslashes) and
// multi-byte UTF-8, as a model writing code or prose in another script
// streams it. It leaves out <, > and &, which encoding/json (the community
// SDK's encoder) escapes for HTML and agui-go does not, so that both sides
// still send the same bytes.
const escapedDelta = "He said \"hi\"\n\tC:\\tmp\\x — naïve café, 你好 ✓ "

// discardWriter is an http.ResponseWriter and http.Flusher that counts and
// drops the body: the emit benchmarks measure the SDK, not a socket.
type discardWriter struct {
	h http.Header
	n int
}

func newDiscardWriter() *discardWriter               { return &discardWriter{h: http.Header{}} }
func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

// oursAgent streams n deltas of text through the SDK's helpers; wait,
// when not nil, is called after RUN_STARTED has gone out and before the
// message (the idle-run measurement holds the run open there).
func oursAgent(n int, text string, wait func(context.Context)) server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if wait != nil {
			// RUN_STARTED goes out once the agent pauses here.
			wait(ctx)
		}
		m, err := rc.StartTextMessage(server.WithID(messageID))
		if err != nil {
			return server.Outcome{}, err
		}
		for range n {
			if err := m.Append(text); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
}

// oursHandler is the SDK's HTTP handler serving oursAgent.
func oursHandler(n int, wait func(context.Context)) http.Handler {
	return server.NewHandler(oursAgent(n, delta, wait))
}

// untimed clears the timestamp that the community constructors stamp on
// every event, so that both SDKs put the same bytes on the wire (with it,
// the community writer also adds an "id:" line to every frame).
func untimed(b *cevents.BaseEvent) { b.TimestampMs = nil }

// communityHandler is how the community SDK serves the same run: it has
// no handler of its own, so this is the net/http handler its examples
// write, with its SSEWriter (which flushes after every event, as theirs do).
func communityHandler(n int, wait func(context.Context)) http.Handler {
	return communityTextHandler(n, delta, wait)
}

// communityTextHandler is communityHandler streaming deltas of text.
func communityTextHandler(n int, text string, wait func(context.Context)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		if err := communityRun(r.Context(), w, n, text, wait); err != nil {
			// Headers are gone; all a handler can do is stop.
			return
		}
	})
}

func communityRun(ctx context.Context, w io.Writer, n int, text string, wait func(context.Context)) error {
	sw := csse.NewSSEWriter()
	write := func(ev cevents.Event) error { return sw.WriteEvent(ctx, w, ev) }
	started := cevents.NewRunStartedEvent(threadID, runID)
	untimed(started.BaseEvent)
	if err := write(started); err != nil {
		return err
	}
	if wait != nil {
		wait(ctx)
	}
	start := cevents.NewTextMessageStartEvent(messageID)
	untimed(start.BaseEvent)
	if err := write(start); err != nil {
		return err
	}
	for range n {
		ev := cevents.NewTextMessageContentEvent(messageID, text)
		untimed(ev.BaseEvent)
		if err := write(ev); err != nil {
			return err
		}
	}
	end := cevents.NewTextMessageEndEvent(messageID)
	untimed(end.BaseEvent)
	if err := write(end); err != nil {
		return err
	}
	finished := cevents.NewRunFinishedEventWithOptions(threadID, runID, cevents.WithSuccessOutcome())
	untimed(finished.BaseEvent)
	return write(finished)
}

// neutralRun is the client both servers are measured with: it POSTs the
// input and reads the body line by line to the end, counting data lines
// (no SDK on this side). It fails unless want frames arrived.
func neutralRun(ctx context.Context, hc *http.Client, url string, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(runInput))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	frames := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("data:")) {
			frames++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if frames != want {
		return fmt.Errorf("%d frames, want %d", frames, want)
	}
	return nil
}
