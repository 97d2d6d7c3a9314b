package verify

import "github.com/agui-go/sdk/agui"

// Client is the client-profile verifier: it accepts exactly the streams the
// reference client (@ag-ui/client 1.0.0, verifyEvents) accepts and rejects
// the others at the same event, and it reports a truncated run at Finish,
// which the reference does not.
//
// Like the reference it accepts several runs in one stream (a RUN_STARTED
// after RUN_FINISHED or RUN_ERROR starts a new run and forgets the last
// one's state), a stream that opens with RUN_ERROR, a late RUN_ERROR after
// RUN_FINISHED, reopening a closed message or tool call, and events
// attributed to a subagent that was never announced. An event without a
// subagentRunId agrees with any owner; one with a tag must name the owner.
// Ownership is recorded by openers and seeded from MESSAGES_SNAPSHOT (which
// replaces recorded owners) and RUN_STARTED.input (which does not).
//
// Observe accepts a stream before or after chunk expansion: a chunk event
// is expanded as package chunks does, and each event it becomes is verified;
// a failure names the synthesized event with Via set to the chunk's type.
// Events of a type the consumer dropped (unknown types) must not be passed.
//
// The zero value is ready. A Client is for one stream and not safe for
// concurrent use.
type Client struct {
	e engine
}

// Observe verifies the next event. It returns nil or a *Error; after the
// first failure it returns that same error for every later event.
func (c *Client) Observe(ev agui.Event) error {
	return c.e.observe(ev)
}

// Finish reports the end of the stream: a *Error wrapping ErrTruncated when
// a run is still active, the sticky failure if there was one, else nil.
func (c *Client) Finish() error {
	return c.e.finish()
}
