package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/sse"
)

// serveHTTP serves h with NewHTTPServer on a loopback port and returns its
// base URL, and shutdown, which shuts the server down gracefully (waiting
// up to 10s) and fails the test unless it and Serve end as they should.
func serveHTTP(t *testing.T, h http.Handler) (base string, shutdown func()) {
	t.Helper()
	srv := server.NewHTTPServer("", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("Serve: %v", err)
		}
	}
}

// openRun posts a run to url and returns the response once RUN_STARTED has
// arrived, with the reader positioned after it.
func openRun(t *testing.T, client *http.Client, url string) (*http.Response, *sse.Reader) {
	t.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	r := sse.NewReader(resp.Body)
	data, err := r.Next()
	if err != nil || !strings.Contains(string(data), `"RUN_STARTED"`) {
		t.Fatalf("first frame %q, %v", data, err)
	}
	return resp, r
}

// rest reads the remaining events of a stream.
func rest(r *sse.Reader) ([]agui.Event, error) {
	var evs []agui.Event
	for {
		data, err := r.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		ev, err := agui.DecodeEvent(data)
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// Shutting an HTTPServer down with runs in flight ends every one of them with
// exactly one terminal event, RUN_ERROR CANCELLED whose cause is the
// shutdown, and Shutdown returns once they have.
func TestHTTPServerShutdownEndsLiveRuns(t *testing.T) {
	const runs = 20
	causes := make(chan error, runs)
	running := make(chan struct{}, runs)
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		running <- struct{}{}
		// RUN_STARTED goes out at once, so the shutdown may come before
		// this emit: it then fails as cancelled, and the agent still
		// reports the cause it saw.
		said := rc.Say("working")
		<-ctx.Done()
		causes <- context.Cause(ctx)
		if said != nil {
			return server.Outcome{}, said
		}
		return server.Outcome{}, ctx.Err()
	})
	base, shutdown := serveHTTP(t, server.NewHandler(agent))
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	url := base + "/agent"

	readers := make([]*sse.Reader, runs)
	for i := range readers {
		resp, r := openRun(t, client, url)
		defer resp.Body.Close()
		readers[i] = r
	}
	// A run the shutdown cancels before its agent is called ends as
	// cancelled without calling it: wait until every agent runs, so that
	// each reports the cause it saw.
	for range runs {
		<-running
	}
	shutdown()
	for i, r := range readers {
		evs, err := rest(r)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		terminals := 0
		for _, ev := range evs {
			if ev.Type() == agui.EventTypeRunError || ev.Type() == agui.EventTypeRunFinished {
				terminals++
			}
		}
		re, ok := evs[len(evs)-1].(*agui.RunError)
		if terminals != 1 || !ok || re.Code == nil || *re.Code != string(agui.CodeCancelled) ||
			re.Message != "run cancelled: the server is shutting down" {
			t.Fatalf("run %d ended with %d terminal events, last %+v", i, terminals, evs[len(evs)-1])
		}
	}
	for range runs {
		if cause := <-causes; !errors.Is(cause, server.ErrServerShutdown) {
			t.Fatalf("an agent saw cause %v, want ErrServerShutdown", cause)
		}
	}
}

// The hardened server cuts a client that drips its request head.
func TestHTTPServerCutsSlowHead(t *testing.T) {
	srv := server.NewHTTPServer("", server.NewHandler(hello()))
	if srv.ReadHeaderTimeout != server.DefaultReadHeaderTimeout || srv.IdleTimeout != server.DefaultIdleTimeout ||
		srv.MaxHeaderBytes != server.DefaultMaxHeaderBytes || srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Fatalf("defaults: %+v", srv.Server)
	}
	srv.ReadHeaderTimeout = 200 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: x\r\n") // and never the rest
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("the connection was not closed by the server: %v", err)
	}
}

// A body that does not arrive within the body timeout gets 408; a run that
// lasts longer than the body timeout is not cut by it.
func TestBodyTimeout(t *testing.T) {
	const d = 200 * time.Millisecond
	srv := httptest.NewServer(server.NewHandler(hello(), server.WithBodyTimeout(d)))
	defer srv.Close()

	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"threadId\"")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestTimeout || errorCode(t, resp) != agui.HTTPCodeRequestTimeout {
		t.Fatalf("status %d, want 408 REQUEST_TIMEOUT", resp.StatusCode)
	}

	// The body (all there at once) must be read within the body timeout:
	// a loaded machine that keeps the handler from reading it that long
	// gets it 408, and the run is tried again with a timeout four times as
	// long. What is judged is that the run, once served, outlives the
	// timeout.
	ds := []time.Duration{d, 4 * d, 16 * d}
	for i, d := range ds {
		agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			time.Sleep(3 * d)
			return server.Success(), rc.Say("still here")
		})
		srv := httptest.NewServer(server.NewHandler(agent, server.WithBodyTimeout(d)))
		t.Cleanup(srv.Close)
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(validBody))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusRequestTimeout && i < len(ds)-1 {
			resp.Body.Close()
			t.Logf("the body, sent whole, took the handler more than %v to read: trying again with %v", d, ds[i+1])
			continue
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("a run with a %v body timeout: status %d: %s", d, resp.StatusCode, b)
		}
		var last agui.Event
		for data, err := range sse.Frames(resp.Body) {
			if err != nil {
				t.Fatal(err)
			}
			if last, err = agui.DecodeEvent(data); err != nil {
				t.Fatal(err)
			}
		}
		resp.Body.Close()
		if _, ok := last.(*agui.RunFinished); !ok {
			t.Fatalf("a run longer than the %v body timeout ended with %v", d, last)
		}
		return
	}
}

// errorCode reads the code of a JSON error body.
func errorCode(t *testing.T, resp *http.Response) agui.HTTPCode {
	t.Helper()
	defer resp.Body.Close()
	var b struct {
		Error struct {
			Code    agui.HTTPCode
			Message string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return b.Error.Code
}

// Past the cap, a request gets 503 with Retry-After and the JSON error body
// at once; once a run ends, its place is free again.
func TestMaxConcurrentRuns(t *testing.T) {
	release := make(chan struct{})
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return server.Success(), nil
	})
	srv := httptest.NewServer(server.NewHandler(agent, server.WithMaxConcurrentRuns(2)))
	defer srv.Close()
	client := srv.Client()

	var wg sync.WaitGroup
	for range 2 {
		resp, r := openRun(t, client, srv.URL)
		wg.Go(func() {
			defer resp.Body.Close()
			rest(r)
		})
	}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader(validBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" ||
		errorCode(t, resp) != agui.HTTPCodeOverloaded {
		t.Fatalf("third run: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(release)
	wg.Wait()
	resp, r := openRun(t, client, srv.URL)
	defer resp.Body.Close()
	if evs, err := rest(r); err != nil || evs[len(evs)-1].Type() != agui.EventTypeRunFinished {
		t.Fatalf("after the others ended: %v %v", evs, err)
	}
}

// ServeUntil serves until its context ends, then drains: a run in flight
// ends with one RUN_ERROR naming the shutdown, and a clean stop returns nil.
func TestHTTPServerServeUntil(t *testing.T) {
	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		<-ctx.Done()
		return server.Outcome{}, ctx.Err()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- server.NewHTTPServer("", server.NewHandler(agent)).ServeUntil(ctx, ln, 5*time.Second)
	}()
	resp, r := openRun(t, http.DefaultClient, "http://"+ln.Addr().String())
	defer resp.Body.Close()
	stop()
	evs, err := rest(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("after RUN_STARTED: %d events, want one RUN_ERROR", len(evs))
	}
	re, ok := evs[0].(*agui.RunError)
	if !ok || !strings.Contains(re.Message, "shutting down") {
		t.Fatalf("terminal event %#v, want RUN_ERROR for the shutdown", evs[0])
	}
	if err := <-served; err != nil {
		t.Fatalf("ServeUntil: %v", err)
	}
}
