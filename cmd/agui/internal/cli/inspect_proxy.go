package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/protoframe"
)

// kindProxy is a session recorded by the proxy.
const kindProxy = "proxy"

// maxProxiedInput is the largest request body the proxy reads to record
// the run's input; a larger one is refused (413), as an agent would.
const maxProxiedInput = 64 << 20

// recordingProxy forwards every request to the agent and every answer
// back, bytes unchanged, and records each run passing through as a
// session of the inspector: the request's RunAgentInput, and the answer
// read from a copy of its bytes off the forwarding path.
type recordingProxy struct {
	in *inspector
	to *url.URL
	rp *httputil.ReverseProxy
}

type proxyInputKey struct{}

func newRecordingProxy(in *inspector, to string) (*recordingProxy, error) {
	u, err := url.Parse(to)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("--to must be the agent's http:// or https:// URL, not " + quoteJSON(to))
	}
	p := &recordingProxy{in: in, to: u}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		FlushInterval:  -1, // every write of the agent goes on at once
		ModifyResponse: p.record,
		ErrorHandler:   p.failed,
	}
	return p, nil
}

// rewrite sends a request for / to the agent's URL, and one for /x to the
// agent's URL followed by /x (the durable routes: /runs/ID/events, …).
func (p *recordingProxy) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out.URL
	out.Scheme, out.Host = p.to.Scheme, p.to.Host
	path := pr.In.URL.Path
	if path == "" || path == "/" {
		out.Path, out.RawPath = p.to.Path, p.to.RawPath
	} else {
		out.Path, out.RawPath = strings.TrimSuffix(p.to.Path, "/")+path, ""
	}
	if p.to.RawQuery != "" && out.RawQuery == "" {
		out.RawQuery = p.to.RawQuery
	}
	pr.Out.Host = p.to.Host
}

func (p *recordingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var input *agui.RunAgentInput
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxProxiedInput+1))
		r.Body.Close()
		if err != nil {
			apiError(w, http.StatusBadRequest, "INVALID_REQUEST", "the request body could not be read: "+err.Error())
			return
		}
		if len(body) > maxProxiedInput {
			apiError(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", "the request body is larger than the inspector's proxy reads")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if in, _, err := client.DecodeInput(body); err == nil {
			input = in
		}
		r = r.WithContext(context.WithValue(r.Context(), proxyInputKey{}, input))
	}
	p.rp.ServeHTTP(w, r)
}

// record starts a session for an answer worth recording: a stream, or
// any answer to a POST (a run that failed is a run to see).
func (p *recordingProxy) record(resp *http.Response) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	stream := mt == "text/event-stream" || mt == protoframe.MediaType
	if !stream && resp.Request.Method != http.MethodPost {
		return nil
	}
	input, _ := resp.Request.Context().Value(proxyInputKey{}).(*agui.RunAgentInput)
	s := newSession(kindProxy, target{URL: resp.Request.URL.String()}, input)
	p.in.add(s)
	q := newByteQueue()
	resp.Body = &teeBody{rc: resp.Body, q: q}
	copyResp := &http.Response{StatusCode: resp.StatusCode, Header: resp.Header.Clone(), Body: io.NopCloser(q)}
	go s.readAnswer(context.Background(), copyResp, nil)
	return nil
}

// failed answers a request the agent did not answer, and records why.
func (p *recordingProxy) failed(w http.ResponseWriter, r *http.Request, err error) {
	input, _ := r.Context().Value(proxyInputKey{}).(*agui.RunAgentInput)
	s := newSession(kindProxy, target{URL: r.URL.String()}, input)
	p.in.add(s)
	if r.Context().Err() != nil {
		s.finish("", "the front end went away before the agent answered")
		return
	}
	msg := describeRequestError(p.to.String(), err)
	s.finish(msg, "")
	apiError(w, http.StatusBadGateway, "BAD_GATEWAY", msg)
}

// teeBody hands the bytes the proxy forwards to the recorder's queue,
// after they were forwarded: the reverse proxy reads a chunk, writes it to
// the front end and flushes it (FlushInterval -1) before it reads again, so
// a chunk read is kept and queued at the start of the next Read (or at
// Close, for the last). The forwarding path does no more than copy the
// chunk into a buffer it reuses; it never waits for the recorder.
type teeBody struct {
	rc      io.ReadCloser
	q       *byteQueue
	pending []byte // the chunk last read: forwarded by the time Read is called again
	err     error  // the error Read returned, queued after pending
}

func (t *teeBody) Read(p []byte) (int, error) {
	t.handOff()
	n, err := t.rc.Read(p)
	t.pending = append(t.pending[:0], p[:n]...)
	if err != nil && n == 0 {
		t.q.close(err)
	}
	t.err = err
	return n, err
}

// handOff queues the chunk the proxy has forwarded.
func (t *teeBody) handOff() {
	if len(t.pending) > 0 {
		t.q.write(t.pending)
		t.pending = t.pending[:0]
	}
}

func (t *teeBody) Close() error {
	t.handOff()
	err := t.err
	if err == nil {
		err = errors.New("the connection was closed before the answer ended")
	}
	t.q.close(err)
	return t.rc.Close()
}

// byteQueue is an unbounded pipe: writes never wait (the proxy's path
// must not wait for the inspector) and, once its two buffers have grown,
// do not allocate; reads wait for data or the end.
type byteQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	buf     []byte // written, not yet taken by the reader
	err     error  // set once: io.EOF for a clean end
	waiting bool   // the reader waits on cond

	// The reader's side: the bytes it took, from off on.
	out []byte
	off int
}

func newByteQueue() *byteQueue {
	q := &byteQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *byteQueue) write(b []byte) {
	q.mu.Lock()
	if q.err == nil {
		q.buf = append(q.buf, b...)
		if q.waiting {
			q.cond.Signal()
		}
	}
	q.mu.Unlock()
}

func (q *byteQueue) close(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// recordEvery is how long the recorder lets the answer's bytes gather
// before it reads them: it works in bursts, not in step with every frame
// the proxy forwards, so that the proxy seldom wakes it.
const recordEvery = 5 * time.Millisecond

func (q *byteQueue) Read(p []byte) (int, error) {
	if q.off == len(q.out) {
		q.mu.Lock()
		if len(q.buf) == 0 && q.err == nil {
			q.mu.Unlock()
			time.Sleep(recordEvery)
			q.mu.Lock()
		}
		for len(q.buf) == 0 && q.err == nil {
			q.waiting = true
			q.cond.Wait()
			q.waiting = false
		}
		if len(q.buf) == 0 {
			err := q.err
			q.mu.Unlock()
			return 0, err
		}
		// The writer gets the reader's spent buffer to fill next.
		q.out, q.buf, q.off = q.buf, q.out[:0], 0
		q.mu.Unlock()
	}
	n := copy(p, q.out[q.off:])
	q.off += n
	return n, nil
}
