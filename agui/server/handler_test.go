package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

const validBody = `{"threadId":"t","runId":"r","state":null,"messages":[{"id":"u","role":"user","content":"hi"}]}`

func hello() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("hello")
	})
}

func post(h http.Handler, body string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestHandlerRejections(t *testing.T) {
	type stateful struct {
		N int `json:"n"`
	}
	h := server.NewHandler(hello(), server.WithMaxBodyBytes(1024))
	hs := server.NewHandler(server.AgentFunc[stateful](func(ctx context.Context, rc *server.RunContext[stateful]) (server.Outcome, error) {
		return server.Outcome{}, nil
	}))
	for _, tc := range []struct {
		name    string
		h       http.Handler
		method  string
		body    string
		header  map[string]string
		status  int
		code    string
		message string // a substring
	}{
		{name: "method", method: http.MethodGet, status: 405, code: "METHOD_NOT_ALLOWED"},
		{name: "content type", header: map[string]string{"Content-Type": "text/plain"}, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "no content type", header: map[string]string{"Content-Type": ""}, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "charset", header: map[string]string{"Content-Type": "application/json; charset=latin1"}, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "html only", header: map[string]string{"Accept": "text/html"}, status: 406, code: "NOT_ACCEPTABLE"},
		{name: "both refused", header: map[string]string{"Accept": "text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0, */*"}, status: 406, code: "NOT_ACCEPTABLE"},
		{name: "too large", body: `{"threadId":"` + strings.Repeat("x", 2000) + `"}`, status: 413, code: "REQUEST_TOO_LARGE"},
		{name: "malformed", body: `{"threadId":`, status: 400, code: "INVALID_INPUT"},
		{name: "invalid", body: `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"narrator","content":"hi"}]}`, status: 400, code: "INVALID_INPUT", message: "/messages/0"},
		{name: "missing member", body: `{"threadId":"t","messages":[]}`, status: 400, code: "INVALID_INPUT", message: "runId"},
		{name: "state type", h: hs, body: `{"threadId":"t","runId":"r","state":{"n":"x"},"messages":[]}`, status: 400, code: "INVALID_INPUT", message: "/state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh := tc.h
			if hh == nil {
				hh = h
			}
			method, body := tc.method, tc.body
			if method == "" {
				method = http.MethodPost
			}
			if body == "" {
				body = validBody
			}
			req := httptest.NewRequest(method, "/agent", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tc.header {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			w := httptest.NewRecorder()
			hh.ServeHTTP(w, req)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("content type %q", ct)
			}
			var got struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			dec := json.NewDecoder(w.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got.Error.Code != tc.code || got.Error.Message == "" || !strings.Contains(got.Error.Message, tc.message) {
				t.Fatalf("error %+v, want code %s mentioning %q", got.Error, tc.code, tc.message)
			}
			if tc.status == 405 && w.Header().Get("Allow") != "POST" {
				t.Fatal("405 without Allow: POST")
			}
		})
	}
}

func TestNegotiation(t *testing.T) {
	h := server.NewHandler(hello())
	for _, tc := range []struct {
		accept string
		ok     bool
	}{
		{"", true},
		{"text/event-stream", true},
		{"*/*", true}, // admits both; SSE unless protobuf is named
		{"text/*", true},
		{"application/vnd.ag-ui.event+proto, text/event-stream", true},
		{"text/event-stream;q=0.1, application/vnd.ag-ui.event+proto", true},
		{"TEXT/EVENT-STREAM", true},
		{"application/vnd.ag-ui.event+proto", true},
		{"application/*", true},
		{"text/event-stream;q=0", false},
		{"application/json", false},
	} {
		w := post(h, validBody, map[string]string{"Accept": tc.accept})
		if ok := w.Code == http.StatusOK; ok != tc.ok {
			t.Errorf("Accept %q: status %d", tc.accept, w.Code)
		}
	}
}

func TestSSEFraming(t *testing.T) {
	w := post(server.NewHandler(hello()), validBody, map[string]string{"Accept": "text/event-stream"})
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/event-stream" || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	body := w.Body.String()
	if strings.Contains(body, "\r") {
		t.Fatal("CR in the stream")
	}
	frames := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	var got []agui.EventType
	for _, f := range frames {
		data, ok := strings.CutPrefix(f, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("frame %q", f)
		}
		ev, err := agui.DecodeEvent([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Type())
	}
	want := "[RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED]"
	if fmtTypes(got) != want {
		t.Fatalf("got %v", got)
	}
}

func fmtTypes(ts []agui.EventType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// readFrames reads SSE frames from r and sends their data (or comments) on ch.
func readFrames(r io.Reader, ch chan<- string) {
	defer close(ch)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			ch <- line
		}
	}
}

// postWatchingMessageEnd posts validBody to url, calls onEnd when the
// TEXT_MESSAGE_END frame arrives, reads the stream to its end and returns the
// last frame.
func postWatchingMessageEnd(t *testing.T, url string, onEnd func()) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string)
	go readFrames(resp.Body, lines)
	var last string
	for line := range lines {
		if strings.Contains(line, "TEXT_MESSAGE_END") {
			onEnd()
		}
		last = line
	}
	return last
}

// The handler flushes as soon as the agent pauses: the agent waits for the
// client to have seen its message, which deadlocks if anything is held back.
func TestFlushOnPause(t *testing.T) {
	seen := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("ping"); err != nil {
			return server.Outcome{}, err
		}
		select {
		case <-seen:
			return server.Success(), nil
		case <-time.After(giveUp):
			return server.Outcome{}, errors.New("the client never saw the message")
		}
	})
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()
	last := postWatchingMessageEnd(t, srv.URL, func() { close(seen) })
	if !strings.Contains(last, "RUN_FINISHED") {
		t.Fatalf("last frame %s", last)
	}
}

// The client vanishes mid-stream: the agent observes cancellation within
// 100ms (of the time the scheduler let it run), with cause
// ErrClientDisconnected, and its next emit fails.
func TestClientDisconnect(t *testing.T) {
	probe := startProbe(t)
	observed := make(chan time.Time, 1)
	emitErr := make(chan error, 1)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		if err := rc.Say("first"); err != nil {
			return server.Outcome{}, err
		}
		<-ctx.Done()
		observed <- time.Now()
		if !errors.Is(context.Cause(ctx), server.ErrClientDisconnected) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
		err := rc.Say("second")
		emitErr <- err
		return server.Outcome{}, err
	})
	srv := httptest.NewServer(server.NewHandler(agent))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(validBody))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go readFrames(resp.Body, lines)
	for line := range lines {
		if strings.Contains(line, "TEXT_MESSAGE_END") {
			break
		}
	}
	gone := time.Now()
	cancel() // the client vanishes
	resp.Body.Close()
	for range lines { // let the reader goroutine finish
	}
	select {
	case at := <-observed:
		probe.withinBound(t, "the agent observing the disconnect", gone, at.Sub(gone), 100*time.Millisecond)
	case <-time.After(giveUp):
		t.Fatal("the agent never observed the disconnect")
	}
	if err := <-emitErr; !server.IsCancelled(err) || !errors.Is(err, server.ErrClientDisconnected) {
		t.Fatalf("emit after disconnect: %v", err)
	}
}

// An agent that says nothing for longer than the keep-alive interval gets a
// keep-alive comment on its stream: the agent waits until one is written.
func TestKeepAlive(t *testing.T) {
	w := &keepAliveWatch{ResponseRecorder: httptest.NewRecorder(), seen: make(chan struct{})}
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		select {
		case <-w.seen:
			return server.Success(), nil
		case <-time.After(giveUp):
			return server.Outcome{}, errors.New("no keep-alive while the agent was idle")
		}
	})
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(validBody))
	req.Header.Set("Content-Type", "application/json")
	server.NewHandler(agent, server.WithKeepAlive(20*time.Millisecond)).ServeHTTP(w, req)
	if !strings.Contains(w.Body.String(), ": keep-alive\n\n") {
		t.Fatalf("no keep-alive in %q", w.Body.String())
	}
	if !strings.HasSuffix(w.Body.String(), "\n\n") || !strings.Contains(w.Body.String(), "RUN_FINISHED") {
		t.Fatalf("%q", w.Body.String())
	}
}

// keepAliveWatch is a response recorder that closes seen once a keep-alive
// comment is written to it.
type keepAliveWatch struct {
	*httptest.ResponseRecorder
	once sync.Once
	seen chan struct{}
}

func (w *keepAliveWatch) Write(b []byte) (int, error) {
	n, err := w.ResponseRecorder.Write(b)
	if strings.Contains(string(b), ": keep-alive\n") {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// lateWriter records writes that happen after ServeHTTP returned.
type lateWriter struct {
	*httptest.ResponseRecorder
	mu       sync.Mutex
	returned bool
	late     int
}

func (w *lateWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if w.returned {
		w.late++
	}
	w.mu.Unlock()
	return w.ResponseRecorder.Write(b)
}

func (w *lateWriter) Flush() { w.ResponseRecorder.Flush() }

// A goroutine the agent leaves behind keeps emitting after the run ended:
// its emits fail and nothing reaches the response after ServeHTTP returned.
func TestNoWriteAfterReturn(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	var stray sync.WaitGroup
	var strayErr atomic.Value
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		stray.Go(func() {
			for {
				if err := rc.Say("still here"); err != nil {
					strayErr.Store(err)
					return
				}
			}
		})
		time.Sleep(5 * time.Millisecond)
		return server.Outcome{}, errors.New("done for")
	})
	w := &lateWriter{ResponseRecorder: httptest.NewRecorder()}
	req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(validBody))
	req.Header.Set("Content-Type", "application/json")
	server.NewHandler(agent, server.WithKeepAlive(time.Millisecond)).ServeHTTP(w, req)
	w.mu.Lock()
	w.returned = true
	w.mu.Unlock()
	stray.Wait()
	// Whatever goroutine could still write (a timer's, a writer's) has
	// ended once the test's goroutines alone are left.
	settle(t, 0, ignore)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.late != 0 {
		t.Fatalf("%d writes after ServeHTTP returned", w.late)
	}
	if err, _ := strayErr.Load().(error); err == nil {
		t.Fatal("the stray goroutine's emit never failed")
	}
	if !strings.HasSuffix(w.Body.String(), "\n\n") || !strings.Contains(w.Body.String(), `"RUN_ERROR"`) {
		t.Fatalf("the stream does not end with RUN_ERROR")
	}
}

// A slow consumer slows the agent down: the agent is never more than one
// event ahead of what the consumer took.
func TestBackpressure(t *testing.T) {
	var emitted atomic.Int64
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for range 20 {
			if err := m.Append("x"); err != nil {
				return server.Outcome{}, err
			}
			emitted.Add(1)
		}
		return server.Success(), m.End()
	})
	taken := int64(0)
	for ev := range server.Run(context.Background(), agent, input()) {
		if ev.Type() == agui.EventTypeTextMessageContent {
			taken++
			time.Sleep(2 * time.Millisecond)
			if e := emitted.Load(); e > taken+1 {
				t.Fatalf("agent ran ahead: %d emitted, %d taken", e, taken)
			}
		}
	}
}

// The run's cancellation cause follows the request context's: a server whose
// BaseContext ends with a cause of its own (shutting down, say) reports that
// cause, not a client that left; a deadline reports ErrDeadline.
func TestHandlerReportsRequestContextCause(t *testing.T) {
	errMaintenance := errors.New("maintenance window")
	for _, tc := range []struct {
		name    string
		end     func(ctx context.Context) (context.Context, func()) // derives the BaseContext and ends it
		cause   error
		message string
	}{
		{"custom cause", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(errMaintenance) }
		}, errMaintenance, "run cancelled: maintenance window"},
		{"server shutdown", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(server.ErrServerShutdown) }
		}, server.ErrServerShutdown, "run cancelled: the server is shutting down"},
		{"wrapped shutdown", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, func() { cancel(fmt.Errorf("%w (SIGTERM)", server.ErrServerShutdown)) }
		}, server.ErrServerShutdown, "run cancelled: the server is shutting down (SIGTERM)"},
		{"deadline", func(ctx context.Context) (context.Context, func()) {
			// A deadline that passes when the client has seen the first
			// message, however long the machine took to get there.
			d := &passingDeadline{Context: ctx, at: time.Now().Add(time.Hour), done: make(chan struct{})}
			return d, d.pass
		}, server.ErrDeadline, "run cancelled: run deadline exceeded"},
		{"plain cancel", func(ctx context.Context) (context.Context, func()) {
			ctx, cancel := context.WithCancel(ctx)
			return ctx, cancel
		}, server.ErrClientDisconnected, "run cancelled: client disconnected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, end := tc.end(context.Background())
			emitErr := make(chan error, 1)
			agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				if err := rc.Say("first"); err != nil {
					return server.Outcome{}, err
				}
				<-ctx.Done()
				if !errors.Is(context.Cause(ctx), tc.cause) {
					t.Errorf("cause %v, want %v", context.Cause(ctx), tc.cause)
				}
				err := rc.Say("second")
				emitErr <- err
				return server.Outcome{}, err
			})
			srv := httptest.NewUnstartedServer(server.NewHandler(agent))
			srv.Config.BaseContext = func(net.Listener) context.Context { return base }
			srv.Start()
			defer srv.Close()
			last := postWatchingMessageEnd(t, srv.URL, end)
			if err := <-emitErr; !server.IsCancelled(err) || !errors.Is(err, tc.cause) {
				t.Fatalf("emit after the end: %v, want CANCELLED reaching %v", err, tc.cause)
			}
			ev, err := agui.DecodeEvent([]byte(strings.TrimPrefix(last, "data: ")))
			if err != nil {
				t.Fatal(err)
			}
			re, ok := ev.(*agui.RunError)
			if !ok || re.Code == nil || *re.Code != string(agui.CodeCancelled) || re.Message != tc.message {
				t.Fatalf("terminal %s, want RUN_ERROR CANCELLED %q", last, tc.message)
			}
		})
	}
}

// passingDeadline is a context with a deadline that passes when pass is
// called: its Err is then context.DeadlineExceeded, as a context.WithDeadline
// whose time came, and so is its cause.
type passingDeadline struct {
	context.Context
	at   time.Time // what Deadline says; it passes when pass is called
	once sync.Once
	done chan struct{}
}

func (d *passingDeadline) Deadline() (time.Time, bool) { return d.at, true }
func (d *passingDeadline) Done() <-chan struct{}       { return d.done }
func (d *passingDeadline) pass()                       { d.once.Do(func() { close(d.done) }) }

func (d *passingDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Keep-alives go out only after the stream has been idle for the interval,
// whichever goroutine writes: an agent that emits every 2ms never gets one.
// By default such a stream is written by the emitting goroutine; with the
// writer's wait lengthened past the pace, by the stream's writer goroutine.
func TestKeepAliveOnlyWhenIdle(t *testing.T) {
	const interval = 50 * time.Millisecond
	for _, linger := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint("linger=", linger), func(t *testing.T) {
			if linger > 0 {
				defer server.SetWriterLinger(server.SetWriterLinger(linger))
			}
			// The agent appends every 2 ms, then idles until the client has
			// seen a keep-alive. On a loaded machine a 2 ms sleep can last
			// longer than the keep-alive interval, and then a keep-alive
			// in the busy phase is right: the agent records the longest
			// time between two of its emits, from before the first to
			// after the second (more than the stream can have been idle
			// between them), so that the test only demands silence when
			// the stream really was never idle.
			var longestGap atomic.Int64 // nanoseconds
			idleSeen := make(chan struct{})
			busy := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
				var prev time.Time // before the emit before
				emitted := func(before time.Time) {
					if gap := int64(time.Since(prev)); !prev.IsZero() && gap > longestGap.Load() {
						longestGap.Store(gap)
					}
					prev = before
				}
				before := time.Now()
				m, err := rc.StartTextMessage()
				if err != nil {
					return server.Outcome{}, err
				}
				emitted(before)
				for end := before.Add(250 * time.Millisecond); time.Now().Before(end); {
					before := time.Now()
					if err := m.Append("x"); err != nil {
						return server.Outcome{}, err
					}
					emitted(before)
					time.Sleep(2 * time.Millisecond)
				}
				before = time.Now()
				if err := m.End(); err != nil {
					return server.Outcome{}, err
				}
				emitted(before)
				select { // now idle: keep-alives are due
				case <-idleSeen:
				case <-time.After(giveUp):
				case <-ctx.Done():
					return server.Outcome{}, ctx.Err()
				}
				return server.Success(), nil
			})
			srv := httptest.NewServer(server.NewHandler(busy, server.WithKeepAlive(interval)))
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(validBody))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			lines := make(chan string)
			go readFrames(resp.Body, lines)
			// Busy from the agent's TEXT_MESSAGE_START (the agent's
			// first emit: before it, the agent had not started) to its
			// TEXT_MESSAGE_END.
			var sawStart, sawEnd bool
			var during, after int
			for line := range lines {
				switch {
				case strings.Contains(line, "TEXT_MESSAGE_START"):
					sawStart = true
				case strings.Contains(line, "TEXT_MESSAGE_END"):
					sawEnd = true
				case line == ": keep-alive" && sawEnd:
					if after == 0 {
						close(idleSeen)
					}
					after++
				case line == ": keep-alive" && sawStart:
					during++
				}
			}
			if during != 0 {
				gap := time.Duration(longestGap.Load())
				if gap < interval {
					t.Fatalf("%d keep-alives on a stream that was never idle for %v (longest gap between emits %v)", during, interval, gap)
				}
				t.Logf("%d keep-alives while busy, allowed: the agent went %v between two emits", during, gap)
			}
			if after == 0 {
				t.Fatal("no keep-alive once the stream was idle")
			}
		})
	}
}
