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
	q := &byteQueue{}
	q.cond = sync.NewCond(&q.mu)
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

// teeBody hands what the front end reads to a queue as well; the queue
// never blocks the read.
type teeBody struct {
	rc io.ReadCloser
	q  *byteQueue
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.q.write(p[:n])
	}
	if err != nil {
		t.q.close(err)
	}
	return n, err
}

func (t *teeBody) Close() error {
	t.q.close(errors.New("the connection was closed before the answer ended"))
	return t.rc.Close()
}

// byteQueue is an unbounded pipe: writes never wait (the proxy's path
// must not wait for the inspector), reads wait for data or the end.
type byteQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	err    error // set once: io.EOF for a clean end
}

func (q *byteQueue) write(b []byte) {
	q.mu.Lock()
	if q.err == nil {
		q.chunks = append(q.chunks, bytes.Clone(b))
		q.cond.Signal()
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
// the proxy forwards, so that it competes less with the forwarding.
const recordEvery = 5 * time.Millisecond

func (q *byteQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	if len(q.chunks) == 0 && q.err == nil {
		q.mu.Unlock()
		time.Sleep(recordEvery)
		q.mu.Lock()
	}
	defer q.mu.Unlock()
	for len(q.chunks) == 0 && q.err == nil {
		q.cond.Wait()
	}
	if len(q.chunks) == 0 {
		return 0, q.err
	}
	n := copy(p, q.chunks[0])
	if n == len(q.chunks[0]) {
		q.chunks = q.chunks[1:]
	} else {
		q.chunks[0] = q.chunks[0][n:]
	}
	return n, nil
}
