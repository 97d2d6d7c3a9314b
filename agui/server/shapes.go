package server

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"unicode/utf8"

	"github.com/agui-go/sdk/agui"
)

// This file holds the helpers for the shapes most agents emit: a streamed
// text reply, a tool call with its result, a state change. Each is the
// Start…/Append/End sequence it stands for, through the same verified path,
// and each failure it meets becomes the run's first failure like any failed
// emit's (see [Emitter.Err]), so an agent may call them without checking
// what they return.

// Err returns the run's first failure: the error the first failed emit of the
// run returned, or nil while none has failed. Once an emit has failed, every
// later emit, through any handle of the run, sends nothing and returns that
// same error, and the run ends with RUN_ERROR reporting it, whatever the
// agent returns; so an agent may leave an emit's error unchecked and still
// never finish a run as a success after part of it was lost, as a
// bufio.Writer's Flush reports the first failed Write.
//
// An emit after the run was cancelled fails (with CANCELLED, or with the
// failure that came first), so an agent that ignores errors still stops
// sending at once. An emit through the handle of a subagent that ended
// is the one exception: it fails, but it ends only that subagent's handles,
// not the run (see [Subagent]), because ending a subagent is how an agent
// stops the subagent's remaining work while the run goes on.
//
// Check Err, or an emit's error, where the agent has more to do than emit:
// before a model call or a tool that costs something.
func (em *Emitter) Err() error { return em.e.firstFailure() }

// SayStream emits one assistant text message whose text is the chunks of
// chunks, each non-empty chunk as one TEXT_MESSAGE_CONTENT as it comes, and
// ends it. It stops pulling chunks at the first emit that fails and returns
// that error. A model SDK's stream of deltas fits it directly:
//
//	rc.SayStream(func(yield func(string) bool) {
//		for stream.Next() {
//			if !yield(stream.Current().Delta) {
//				return
//			}
//		}
//	})
func (em *Emitter) SayStream(chunks iter.Seq[string], opts ...TextMessageOption) error {
	m, err := em.StartTextMessage(opts...)
	if err != nil {
		return err
	}
	for chunk := range chunks {
		if chunk == "" {
			continue
		}
		if err := m.Append(chunk); err != nil {
			return err
		}
	}
	return m.End()
}

// readChunk is how much SayReader asks of its reader at a time: a streamed
// reply arrives a few bytes at a time, and one read is one delta.
const readChunk = 4 << 10

// SayReader emits one assistant text message whose text is read from r
// until EOF, each read as one TEXT_MESSAGE_CONTENT as it arrives, and ends
// it. A multi-byte UTF-8 character split across two reads goes out whole in
// the later delta. A read that fails leaves the message open and fails the
// run with AGENT_ERROR wrapping the read's error (CANCELLED if the run was
// cancelled first: an HTTP body read after cancellation fails with the
// context's error); the RUN_ERROR may leave a message open.
func (em *Emitter) SayReader(r io.Reader, opts ...TextMessageOption) error {
	m, err := em.StartTextMessage(opts...)
	if err != nil {
		return err
	}
	buf := make([]byte, readChunk)
	held := 0 // bytes of a character split by the last read, at buf[:held]
	for {
		n, rerr := r.Read(buf[held:])
		n += held
		held = 0
		if n > 0 {
			end := n
			if rerr == nil {
				end = completeUTF8(buf[:n])
			}
			if end > 0 {
				if err := m.Append(string(buf[:end])); err != nil {
					return err
				}
			}
			held = copy(buf, buf[end:n])
		}
		switch {
		case errors.Is(rerr, io.EOF):
			return m.End()
		case rerr != nil:
			return m.e.refuse(fmt.Errorf("reading the reply: %w", rerr))
		}
	}
}

// completeUTF8 returns how much of b ends on a character boundary: all of
// it, unless its last bytes begin a multi-byte character that the next read
// completes. Bytes that can never form a character are not held back.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return i
		}
		break
	}
	return len(b)
}

// EmitToolCall emits a whole tool call at once: TOOL_CALL_START for tool
// name, args as its one TOOL_CALL_ARGS, TOOL_CALL_END, then, unless result
// is nil, TOOL_CALL_RESULT with result as its content. args and result are
// encoded by the package's value rule (see Values in the package
// documentation) before anything is sent, so a value that does not encode
// fails with SERIALIZATION and sends nothing.
//
// It returns the call's id. A call with no result is one the client runs (a
// frontend tool): end the run with [Success] naming the id among its
// pending tool calls, and the client's next run carries the result.
func (em *Emitter) EmitToolCall(name string, args, result any, opts ...ToolCallOption) (string, error) {
	a, err := marshalJSON(args)
	if err != nil {
		return "", em.e.refuse(serializationError(err))
	}
	var res []byte
	if result != nil {
		if res, err = marshalJSON(result); err != nil {
			return "", em.e.refuse(serializationError(err))
		}
	}
	c, err := em.StartToolCall(name, opts...)
	if err != nil {
		return "", err
	}
	if err := c.Args(string(a)); err != nil {
		return c.id, err
	}
	if err := c.End(); err != nil {
		return c.id, err
	}
	if res != nil {
		return c.id, c.Result(agui.TextContent(string(res)))
	}
	return c.id, nil
}
