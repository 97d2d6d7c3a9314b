package tcpcut_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/agui-go/sdk/internal/tcpcut"
)

// talker is a backend that answers one byte from a connection with n bytes
// of name (answering only once asked, as an HTTP server does: a reset
// before the client's connect completed would fail its dial).
func talker(t *testing.T, name byte, n int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if _, err := c.Read(make([]byte, 1)); err == nil {
				c.Write(bytes.Repeat([]byte{name}, n))
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// The first connection goes to the first backend and is reset after the
// bytes allowed (the client sees at most those, then an error, never a clean
// end); the next ones go whole to the last backend.
func TestProxy(t *testing.T) {
	p := tcpcut.New(t, 1000, talker(t, 'a', 100_000), talker(t, 'b', 5000))
	for i, want := range []struct {
		name    byte
		max     int
		cut     bool
		cutsNow int
	}{{'a', 1000, true, 1}, {'b', 5000, false, 1}, {'b', 5000, false, 1}} {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if _, err := c.Write([]byte{'?'}); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		got, err := io.ReadAll(c)
		c.Close()
		if want.cut {
			if err == nil || !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("connection %d: %v after %d bytes, want a reset", i, err, len(got))
			}
			if len(got) > want.max {
				t.Fatalf("connection %d: %d bytes, cut after %d", i, len(got), want.max)
			}
		} else if err != nil || len(got) != want.max {
			t.Fatalf("connection %d: %d bytes, %v; want %d", i, len(got), err, want.max)
		}
		if len(got) > 0 && (got[0] != want.name || got[len(got)-1] != want.name) {
			t.Fatalf("connection %d reached the wrong backend: %q…", i, got[:1])
		}
		if p.Cuts() != want.cutsNow {
			t.Fatalf("after connection %d: %d cuts", i, p.Cuts())
		}
	}
}
