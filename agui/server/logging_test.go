package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// lastEvent decodes the last SSE frame of a recorded response.
func lastEvent(t *testing.T, body string) map[string]any {
	t.Helper()
	frames := strings.Split(strings.TrimSpace(body), "\n\n")
	var ev map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(frames[len(frames)-1], "data: ")), &ev); err != nil {
		t.Fatalf("last frame %q: %v", frames[len(frames)-1], err)
	}
	return ev
}

// only returns the one record logged, failing unless there is exactly one.
func only(t *testing.T, rec *testlog.Recorder) testlog.Record {
	t.Helper()
	rs := rec.Records()
	if len(rs) != 1 {
		t.Fatalf("%d records logged, want 1: %+v", len(rs), rs)
	}
	return rs[0]
}

// A run that fails is logged once, at level Error, with its ids, code and
// whole message.
func TestLogsFailedRun(t *testing.T) {
	logger, rec := testlog.NewRecorder()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Outcome{}, errors.New("the weather service is down")
	})
	post(server.NewHandler(agent, server.WithLogger(logger)), validBody, nil)
	r := only(t, rec)
	if r.Level != slog.LevelError || r.Message != "agui/server: run failed" ||
		r.Attrs["threadId"] != "t" || r.Attrs["runId"] != "r" || r.Attrs["code"] != "AGENT_ERROR" ||
		r.Attrs["error"] != "agent error: the weather service is down" {
		t.Fatalf("record %+v", r)
	}
}

// A panic is logged once, with its stack, not again as a failed run.
func TestLogsPanicOnce(t *testing.T) {
	logger, rec := testlog.NewRecorder()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		panic("boom")
	})
	post(server.NewHandler(agent, server.WithLogger(logger)), validBody, nil)
	r := only(t, rec)
	if r.Level != slog.LevelError || r.Message != "agui/server: agent panicked" ||
		r.Attrs["threadId"] != "t" || r.Attrs["runId"] != "r" || r.Attrs["code"] != "AGENT_PANIC" ||
		r.Attrs["panic"] != "boom" || !strings.Contains(r.Attrs["stack"].(string), "goroutine") {
		t.Fatalf("record %+v", r)
	}
}

// A cancelled run is logged at level Debug: it is no failure.
func TestLogsCancelledRunAtDebug(t *testing.T) {
	logger, rec := testlog.NewRecorder()
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(server.ErrServerShutdown)
	for range server.Run(ctx, agent, input(), server.WithLogger(logger)) {
	}
	r := only(t, rec)
	if r.Level != slog.LevelDebug || r.Attrs["code"] != "CANCELLED" || r.Attrs["error"] != "run cancelled: the server is shutting down" {
		t.Fatalf("record %+v", r)
	}
}

// A rejected request is logged once with its status and code, and with the
// run's ids once the body named them; 4xx at Info, 5xx at Warn.
func TestLogsRejectedRequest(t *testing.T) {
	type stateful struct{ N int }
	for _, tc := range []struct {
		name   string
		h      func(opts ...server.HandlerOption) http.Handler
		body   string
		status int
		code   string
		level  slog.Level
		ids    bool
	}{
		{"invalid body", func(o ...server.HandlerOption) http.Handler { return server.NewHandler(hello(), o...) },
			`{"threadId":`, 400, "INVALID_INPUT", slog.LevelInfo, false},
		{"bad state", func(o ...server.HandlerOption) http.Handler {
			return server.NewHandler(server.AgentFunc[stateful](func(ctx context.Context, rc *server.RunContext[stateful]) (server.Outcome, error) {
				return server.Success(), nil
			}), o...)
		}, `{"threadId":"t","runId":"r","messages":[],"state":{"N":"x"}}`, 400, "INVALID_INPUT", slog.LevelInfo, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, rec := testlog.NewRecorder()
			w := post(tc.h(server.WithLogger(logger)), tc.body, nil)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			r := only(t, rec)
			if r.Level != tc.level || r.Message != "agui/server: request rejected" || r.Attrs["status"] != int64(tc.status) ||
				r.Attrs["code"] != tc.code || r.Attrs["method"] != "POST" || r.Attrs["path"] != "/agent" || r.Attrs["message"] == "" {
				t.Fatalf("record %+v", r)
			}
			if _, ok := r.Attrs["runId"]; ok != tc.ids || (tc.ids && (r.Attrs["runId"] != "r" || r.Attrs["threadId"] != "t")) {
				t.Fatalf("ids in %+v, want them: %v", r.Attrs, tc.ids)
			}
		})
	}
}

// A 503 is logged at Warn: it is the server that could not serve.
func TestLogsOverloaded(t *testing.T) {
	logger, rec := testlog.NewRecorder()
	release := make(chan struct{})
	started := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		close(started)
		<-release
		return server.Success(), nil
	})
	h := server.NewHandler(agent, server.WithMaxConcurrentRuns(1), server.WithLogger(logger))
	done := make(chan struct{})
	go func() { defer close(done); post(h, validBody, nil) }()
	<-started
	w := post(h, validBody, nil)
	close(release)
	<-done
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", w.Code)
	}
	r := only(t, rec)
	if r.Level != slog.LevelWarn || r.Attrs["status"] != int64(503) || r.Attrs["code"] != "OVERLOADED" {
		t.Fatalf("record %+v", r)
	}
}

// Without WithLogger the handler logs to slog.Default; WithLogger(nil) and a
// discarding logger log nothing.
func TestLoggerDefaultAndSilenced(t *testing.T) {
	failing := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Outcome{}, errors.New("down")
	})
	logger, rec := testlog.NewRecorder()
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logger)

	post(server.NewHandler(failing), validBody, nil)
	if n := len(rec.Records()); n != 1 {
		t.Fatalf("default logger: %d records, want 1", n)
	}
	post(server.NewHandler(failing, server.WithLogger(nil)), validBody, nil)
	post(server.NewHandler(failing, server.WithLogger(slog.New(slog.DiscardHandler))), validBody, nil)
	post(server.NewHandler(failing, server.WithLogger(nil)), `{"threadId":`, nil)
	if n := len(rec.Records()); n != 1 {
		t.Fatalf("silenced: %d records, want still 1", n)
	}
}

// By default legacy nulls read as absent, with one log line naming them;
// WithStrictInput refuses them; a body that breaks the schema otherwise is
// refused either way.
func TestLegacyNullsByDefault(t *testing.T) {
	var got *agui.RunAgentInput
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		got = rc.Input()
		return server.Success(), nil
	})
	logger, rec := testlog.NewRecorder()
	h := server.NewHandler(agent, server.WithLogger(logger))
	w := post(h, legacyBody, nil)
	if w.Code != http.StatusOK || lastEvent(t, w.Body.String())["type"] != "RUN_FINISHED" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got.Tools != nil || got.Context != nil || got.ParentRunID != nil || len(got.Messages) != 1 {
		t.Fatalf("input %+v", got)
	}
	r := only(t, rec)
	if r.Level != slog.LevelInfo || r.Attrs["threadId"] != "t" || r.Attrs["runId"] != "r" ||
		!strings.Contains(strings.Join(r.Attrs["repairs"].([]string), ","), "at /tools: converted legacy null to absent") {
		t.Fatalf("record %+v", r)
	}
	if strings.Contains(strings.Join(r.Attrs["repairs"].([]string), ","), "/state") {
		t.Fatalf("a null state is logged as a repair: %+v", r)
	}

	// A null state alone is the protocol's own tolerance: no log line.
	post(h, `{"threadId":"t","runId":"r","messages":[],"state":null}`, nil)
	// A legacy null deeper in reads as absent too.
	if w := post(h, `{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"x","description":"d","parameters":null}]}`, nil); w.Code != http.StatusOK {
		t.Fatalf("nested legacy null: %d %s", w.Code, w.Body)
	}
	if n := len(rec.Records()); n != 2 {
		t.Fatalf("%d records after a null state and a nested null, want 2: %+v", n, rec.Records())
	}
	// A Go client's nil message slice: read as an empty history, logged.
	if w := post(h, `{"threadId":"t","runId":"r","messages":null}`, nil); w.Code != http.StatusOK || got.Messages == nil || len(got.Messages) != 0 {
		t.Fatalf("null messages: %d %s, input %+v", w.Code, w.Body, got)
	}
	if rs := rec.Records(); len(rs) != 3 || !slices.Contains(rs[2].Attrs["repairs"].([]string), "at /messages: read null as an empty list") {
		t.Fatalf("records after null messages: %+v", rs)
	}
	// Refused by default as by the strict handler: an unknown member, an
	// unknown role, a null where a required member belongs.
	for _, body := range []string{
		`{"threadId":"t","runId":"r","messages":[],"extra":1}`,
		`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"narrator","content":"hi"}]}`,
		`{"threadId":null,"runId":"r","messages":[]}`,
	} {
		if w := post(h, body, nil); w.Code != http.StatusBadRequest {
			t.Fatalf("%s: %d", body, w.Code)
		}
	}

	strict := server.NewHandler(agent, server.WithStrictInput(), server.WithLogger(testlog.New(t)))
	if w := post(strict, legacyBody, nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "null is not allowed") {
		t.Fatalf("strict: %d %s", w.Code, w.Body)
	}
}

// The client gets a summary of a failure: no URL, IP address or host:port;
// the log has the whole message; WithErrorDetail sends it whole.
func TestErrorSummary(t *testing.T) {
	const detail = `agent error: model request failed: Post "http://10.1.2.3:9199/v1/chat/completions": dial tcp 10.1.2.3:9199: connect: connection refused`
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Outcome{}, errors.New(strings.TrimPrefix(detail, "agent error: "))
	})
	logger, rec := testlog.NewRecorder()
	w := post(server.NewHandler(agent, server.WithLogger(logger)), validBody, nil)
	const summary = `agent error: model request failed: Post "<url>": dial tcp <address>: connect: connection refused`
	if msg := lastEvent(t, w.Body.String())["message"]; msg != summary {
		t.Fatalf("client message %q, want %q", msg, summary)
	}
	if r := only(t, rec); r.Attrs["error"] != detail {
		t.Fatalf("logged %q, want the whole message", r.Attrs["error"])
	}
	w = post(server.NewHandler(agent, server.WithErrorDetail(), server.WithLogger(testlog.New(t))), validBody, nil)
	if msg := lastEvent(t, w.Body.String())["message"]; msg != detail {
		t.Fatalf("with WithErrorDetail: %q", msg)
	}
}

// A subagent's failure reaches the client summarised as a run's does.
func TestSubagentFailureSummary(t *testing.T) {
	for _, tc := range []struct {
		opts []server.RunOption
		want string
	}{
		{nil, "lookup <address>: no such host"},
		{[]server.RunOption{server.WithErrorDetail()}, "lookup search.internal: no such host"},
	} {
		agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			sub, err := rc.StartSubagent("researcher")
			if err != nil {
				return server.Outcome{}, err
			}
			sub.Fail(errors.New("lookup search.internal: no such host"))
			return server.Success(), rc.Err()
		})
		var got string
		for ev, err := range server.Run(t.Context(), agent, input(), append(tc.opts, server.WithLogger(testlog.New(t)))...) {
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := ev.(*agui.SubagentError); ok {
				got = e.Message
			}
		}
		if got != tc.want {
			t.Errorf("SUBAGENT_ERROR %q, want %q", got, tc.want)
		}
	}
}
