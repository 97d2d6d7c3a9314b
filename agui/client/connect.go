package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agui-go/sdk/agui"
)

// ErrNoThreadID is the error of a [Thread.Connect] on a thread that has no
// id yet, or a [Client.Connect] given none: there is nothing to connect to.
var ErrNoThreadID = errors.New("agui client: Connect needs the thread's id (WithThreadID)")

// Connect picks the thread up from a server that keeps threads
// (server.WithThreads): GET {url}/threads/{threadId}/events. The server
// answers with the thread so far as one replayed run (MESSAGES_SNAPSHOT,
// STATE_SNAPSHOT, and the open interrupts as its outcome), then the run
// that is live, if one is, followed to its end. Every event goes through
// the pipeline and the thread's reducer, as a run's do, and to the
// subscribers: after Connect the thread holds the server's messages (the
// snapshot reconciles by id with what it held), state and pending
// interrupts, and a [Thread.Run] continues it.
//
// The Result's Outcome is the last run's in the stream: the live run's when
// one was followed. A refusal is an *HTTPError (403 unauthorised, 404 an
// unknown thread, 410 one the server forgot). A connection that drops
// after the replayed run is opened again after the last event read, as a
// run's is (WithResumeAttempts): every event is delivered once. One that
// drops inside the replay (its frames carry no id until its last) is an
// error: call Connect again.
func (t *Thread) Connect(ctx context.Context, opts ...RunOption) (*Result, error) {
	t.run.Lock()
	defer t.run.Unlock()
	t.mu.Lock()
	id := t.threadID
	t.mu.Unlock()
	if id == "" {
		return nil, ErrNoThreadID
	}
	var rc runConfig
	for _, o := range opts {
		o(&rc)
	}
	res := &Result{}
	collect := func(w agui.Warning) { res.Warnings = append(res.Warnings, w) }
	warn := t.c.warnFunc(append(rc.warn, collect))
	resp, err := t.c.connect(ctx, id, rc.header)
	if err != nil {
		return nil, err
	}
	err = t.c.consume(ctx, resp, "", t.c.threadReattacher(ctx, id, rc), Position{}, rc, warn, t.deliver(res, warn))
	t.mu.Lock()
	res.NewMessages = t.conv.NewMessages()
	res.State = t.conv.State()
	res.Outcome = t.conv.Outcome()
	t.mu.Unlock()
	res.Usage = res.Outcome.Usage
	return res, err
}

// Connect delivers the connect stream of thread threadID of a server that
// keeps threads (server.WithThreads), as [Client.Resume] delivers a run:
// the thread so far as one replayed run (MESSAGES_SNAPSHOT, STATE_SNAPSHOT,
// its open interrupts as the outcome), then the live run, if any, to its
// end; every event through the pipeline. With [RunConversation] the events
// are folded into a conversation as they are delivered. [Thread.Connect]
// does this for a Thread.
func (c *Client) Connect(ctx context.Context, threadID string, opts ...RunOption) iter.Seq2[Delivery, error] {
	return func(yield func(Delivery, error) bool) {
		var rc runConfig
		for _, o := range opts {
			o(&rc)
		}
		if threadID == "" {
			yield(Delivery{}, ErrNoThreadID)
			return
		}
		resp, err := c.connect(ctx, threadID, rc.header)
		if err != nil {
			yield(Delivery{}, err)
			return
		}
		stopped := false
		err = c.consume(ctx, resp, "", c.threadReattacher(ctx, threadID, rc), Position{}, rc, c.warnFunc(rc.warn), func(d Delivery, _ int) bool {
			stopped = !yield(d, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(Delivery{}, err)
		}
	}
}

// threadURL is the URL of a thread route of the server at c.url.
func (c *Client) threadURL(threadID, action string) string {
	u := strings.TrimSuffix(c.url, "/") + "/threads/" + url.PathEscape(threadID)
	if action != "" {
		u += "/" + action
	}
	return u
}

// connect opens the connect stream of a thread.
func (c *Client) connect(ctx context.Context, threadID string, extra http.Header) (*http.Response, error) {
	return c.getStream(ctx, c.threadURL(threadID, "events"), "", extra)
}

// threadReattacher opens thread threadID's connect stream again after the
// last SSE id read: the server goes on from there, the rest of the live
// run, or the replay's end when the drop fell between the two.
func (c *Client) threadReattacher(ctx context.Context, threadID string, rc runConfig) reattacher {
	return func(lastID string, attempt int, hint time.Duration) (*http.Response, error) {
		if err := backoff(ctx, attempt, hint); err != nil {
			return nil, err
		}
		return c.getStream(ctx, c.threadURL(threadID, "events"), lastID, rc.header)
	}
}
