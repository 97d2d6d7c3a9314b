//go:build linux

package server_test

import (
	"bufio"
	"context"
	"errors"
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
	// Half a second: a reader that sleeps 40ms between reads is still
	// steady when a loaded machine (CI, -race, parallel packages) stretches
	// a sleep several times over.
	const interval = 500 * time.Millisecond
	ended := make(chan error, 1)
	srv := startSmall(t, server.NewHandler(bigEvents(3, 128<<10, ended), server.WithWriteTimeout(interval)))
	// One 128 KiB event takes about 0.64s to read, more than the interval,
	// while the 36 KiB a deadline covers take 180ms; the three take about
	// 1.9s, more than three intervals.
	body, took := readSteadily(dialSmall(t, srv))
	if err := <-ended; err != nil {
		t.Fatalf("the run was cancelled after %v of steady reading: %v", took, err)
	}
	if !strings.Contains(body, `"type":"RUN_FINISHED"`) {
		t.Fatalf("the stream has no RUN_FINISHED (read %d bytes in %v)", len(body), took)
	}
	// The test means something only if reading took several intervals.
	if took < 3*interval {
		t.Fatalf("reading took only %v; the reader was not slow enough to test anything", took)
	}
	t.Logf("read %d bytes in %v with a %v write timeout", len(body), took, interval)
}

// readSteadily reads a response slowly but steadily, 8 KiB every 40ms
// (about 200 KiB/s), to its end or until the server cuts the connection,
// and returns what it read and how long that took.
func readSteadily(c net.Conn, br *bufio.Reader) (string, time.Duration) {
	start := time.Now()
	buf := make([]byte, 8<<10)
	var body strings.Builder
	for {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := io.ReadFull(br, buf)
		body.Write(buf[:n])
		if err != nil {
			break // the end of the response, or the server cut us
		}
		time.Sleep(40 * time.Millisecond)
	}
	return body.String(), time.Since(start)
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
