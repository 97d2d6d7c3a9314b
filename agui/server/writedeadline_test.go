//go:build linux

package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/server"
)

// smallBuffers makes the kernel hold little of a stream, so that the writer
// sees the reader's pace instead of filling megabytes of socket buffers.
const smallBuffer = 8 << 10

// smallListener shrinks the send buffer of every accepted connection.
type smallListener struct{ net.Listener }

func (l smallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(smallBuffer)
	}
	return c, err
}

// startSmall serves h on loopback with small socket buffers.
func startSmall(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = smallListener{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// dialSmall opens a connection with a small receive buffer, set before the
// handshake so that the advertised window is small from the start, and posts
// a run on it.
func dialSmall(t *testing.T, srv *httptest.Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, smallBuffer)
		})
		return errors.Join(err, serr)
	}}
	c, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/agent", strings.NewReader(validBody))
	req.Header.Set("Content-Type", "application/json")
	req.Close = true // the server closes the connection after the run: EOF ends the reading
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(c, 4<<10)
	resp, err := http.ReadResponse(br, req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("response: %v %v", resp, err)
	}
	return c, br
}

// bigEvents is an agent that says n texts of size bytes each, every one its
// own flush (larger than the handler's buffer bound), and reports how its run
// ended.
func bigEvents(n, size int, ended chan<- error) server.Agent[server.NoState] {
	text := strings.Repeat("z", size)
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		for range n {
			if err := rc.Say(text); err != nil {
				ended <- context.Cause(ctx)
				return server.Outcome{}, err
			}
		}
		ended <- nil
		return server.Success(), nil
	})
}

// A client that reads slowly but steadily keeps its stream, although one
// write of the stream takes it several write-timeout intervals to read: the
// deadline bounds the time without progress, not the time a write takes.
func TestWriteTimeoutSparesSteadySlowReader(t *testing.T) {
	spareSteadySlowReader(t, func(interval time.Duration) (http.Handler, <-chan error) {
		ended := make(chan error, 1)
		// One 128 KiB event takes the reader 1.28 intervals to read, while
		// the 36 KiB a deadline covers take it 0.36; the three take it
		// more than three intervals.
		return server.NewHandler(bigEvents(3, 128<<10, ended), server.WithWriteTimeout(interval)), ended
	})
}

// steadyIntervals are the write timeouts the steady-slow-reader tests try,
// each only when the reader itself stalled at the one before: the reader's
// pace is scaled with the interval, so every try tests the same thing, with
// the scheduler's noise smaller next to it each time.
var steadyIntervals = []time.Duration{500 * time.Millisecond, 2 * time.Second, 8 * time.Second}

// stallWindow bounds what a reader that a working write deadline cut can
// have read from just before the deadline was set to just after it passed:
// the 36 KiB the deadline covers, what the kernel held between server and
// reader when it was set (about 27 KiB with smallBuffer on both sides), what
// the reader's bufio held (4 KiB), and the one 8 KiB read that ends after
// the deadline. A cut with no stallWindow of the stream taking the reader
// the interval or longer is the deadline's fault.
const stallWindow = 80 << 10

// spareSteadySlowReader serves, at each of steadyIntervals in turn, the
// handler serve returns, with that write timeout, and reads its stream
// slowly but steadily (8 KiB per interval/12.5, about 200 KiB/s at half a
// second); ended reports how the run ended. The stream must be read to its
// RUN_FINISHED, with the run not cancelled.
//
// A reader on a loaded machine is not steady: its goroutine can wait longer
// than the interval for a processor, and then the cut is right. When the
// stream was cut, the reader's own record says whether it stalled, whether
// some stallWindow of the stream took it the interval or longer: if not, the
// deadline cut a reader that was making progress, which fails the test at
// once; if so, the test tries again at the next interval, and fails only
// when the reader was cut at the last.
func spareSteadySlowReader(t *testing.T, serve func(interval time.Duration) (http.Handler, <-chan error)) {
	t.Helper()
	for i, interval := range steadyIntervals {
		h, ended := serve(interval)
		srv := startSmall(t, h)
		c, br := dialSmall(t, srv)
		r := readSteadily(c, br, interval*2/25)
		err := <-ended
		c.Close()
		srv.Close()
		finished := strings.Contains(r.body, `"type":"RUN_FINISHED"`)
		if err == nil && finished {
			// The test means something only if reading took several intervals.
			if r.took < 3*interval {
				t.Fatalf("reading took only %v; the reader was not slow enough to test anything", r.took)
			}
			t.Logf("read %d bytes in %v with a %v write timeout (the slowest %d KiB took %v)",
				len(r.body), r.took, interval, stallWindow>>10, r.slowest())
			return
		}
		what := fmt.Sprintf("the stream was cut after %d bytes and %v (no RUN_FINISHED)", len(r.body), r.took)
		if err != nil {
			what = fmt.Sprintf("the run was cancelled after %d bytes and %v of steady reading: %v", len(r.body), r.took, err)
		}
		slowest := r.slowest()
		if slowest < interval {
			t.Fatalf("%s, with a %v write timeout, although the reader took at most %v over any %d KiB of it",
				what, interval, slowest, stallWindow>>10)
		}
		if i == len(steadyIntervals)-1 {
			t.Fatalf("%s, with a %v write timeout; the reader stalled (%d KiB took it %v) at every interval tried",
				what, interval, stallWindow>>10, slowest)
		}
		t.Logf("%s, with a %v write timeout, but the reader itself stalled: %d KiB took it %v; trying again at %v",
			what, interval, stallWindow>>10, slowest, steadyIntervals[i+1])
	}
}

// steadyReading is what readSteadily read, and when.
type steadyReading struct {
	body  string
	took  time.Duration
	marks []readMark // the start, then every read's end, the last one's included
}

// readMark is how much the reader had read at a moment.
type readMark struct {
	at   time.Time
	read int
}

// readSteadily reads a response slowly but steadily, 8 KiB at a time with a
// pause between reads, to its end or until the server cuts the connection.
func readSteadily(c net.Conn, br *bufio.Reader, pause time.Duration) steadyReading {
	start := time.Now()
	r := steadyReading{marks: []readMark{{start, 0}}}
	buf := make([]byte, 8<<10)
	var body strings.Builder
	for {
		c.SetReadDeadline(time.Now().Add(pause + 10*time.Second))
		n, err := io.ReadFull(br, buf)
		body.Write(buf[:n])
		r.marks = append(r.marks, readMark{time.Now(), body.Len()})
		if err != nil {
			break // the end of the response, or the server cut us
		}
		time.Sleep(pause)
	}
	r.body = body.String()
	r.took = time.Since(start)
	return r
}

// slowest is the longest the reader took to read any stallWindow of the
// stream: between two of its marks at most stallWindow apart.
func (r steadyReading) slowest() time.Duration {
	var worst time.Duration
	for i, from := range r.marks {
		for _, to := range r.marks[i+1:] {
			if to.read-from.read > stallWindow {
				break
			}
			worst = max(worst, to.at.Sub(from.at))
		}
	}
	return worst
}

// A client that stops reading (its connection still open) is cut after the
// interval: the agent's emit fails and its run is cancelled as disconnected.
func TestWriteTimeoutCutsStalledReader(t *testing.T) {
	const interval = 250 * time.Millisecond
	ended := make(chan error, 1)
	srv := startSmall(t, server.NewHandler(bigEvents(1000, 64<<10, ended), server.WithWriteTimeout(interval)))
	dialSmall(t, srv) // and never read the body
	wantCut(t, ended, "a client that stopped reading")
}

// wantCut waits for the run to end, and fails unless it ended because its
// client was cut (ErrClientDisconnected); who names the client.
func wantCut(t *testing.T, ended <-chan error, who string) {
	t.Helper()
	select {
	case cause := <-ended:
		if !errors.Is(cause, server.ErrClientDisconnected) {
			t.Fatalf("run ended with cause %v, want ErrClientDisconnected", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal(who + " was not cut")
	}
}
