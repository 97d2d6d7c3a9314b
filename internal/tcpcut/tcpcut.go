// Package tcpcut is a TCP proxy for tests of reattachment: it drops a
// connection mid-stream the way a failing network or a dying load balancer
// does (a reset after some bytes, not an orderly close of the HTTP body), so
// that what the client sees is a transport error in the middle of a frame.
//
// It is shared by the client's tests and by the NATS run log's tests, which
// live in another module; internal/ lets both import it by path.
package tcpcut

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy forwards each TCP connection it accepts to a backend: the i-th
// connection to backends[i], and every later one to the last backend, so
// that a client cut off from one replica reconnects to another through the
// same address. The first connection is reset once CutAfter bytes went from
// the backend to the client.
type Proxy struct {
	ln       net.Listener
	backends []string
	cutAfter int64
	cuts     atomic.Int32
	accepted int
	wg       sync.WaitGroup
}

// New starts a proxy on a free local port; it stops at the end of the test
// (t.Cleanup), once every connection it forwards has ended.
func New(t testing.TB, cutAfter int64, backends ...string) *Proxy {
	t.Helper()
	if len(backends) == 0 {
		t.Fatal("tcpcut: no backend")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, backends: backends, cutAfter: cutAfter}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL is "http://" and Addr.
func (p *Proxy) URL() string { return "http://" + p.Addr() }

// Cuts says how many connections were reset so far (0 or 1).
func (p *Proxy) Cuts() int { return int(p.cuts.Load()) }

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		i := p.accepted
		p.accepted++
		b, err := net.Dial("tcp", p.backends[min(i, len(p.backends)-1)])
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(b, c); b.Close() }()
		go func() {
			defer p.wg.Done()
			if i == 0 {
				io.CopyN(c, b, p.cutAfter)
				p.cuts.Add(1)
				c.(*net.TCPConn).SetLinger(0) // a reset, not a clean close
			} else {
				io.Copy(c, b)
			}
			c.Close()
			b.Close()
		}()
	}
}
