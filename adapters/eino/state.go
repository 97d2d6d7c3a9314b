package eino

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

// ErrNotInARun is returned by [PublishSessionValue] when its context is not
// one an [Agent] runs Eino with (a tool called outside a run, say).
var ErrNotInARun = errors.New("eino: the context is not an AG-UI run's")

// PublishSessionValue sets an Eino session value of the run, as
// adk.AddSessionValue does, and publishes it to the client as the run's
// shared state: member key of the state object is value, sent as a
// STATE_DELTA. Eino's session lives inside the Runner, where the adapter
// cannot read it, so the values the client sees are the ones a tool or an
// agent chose to publish this way; the others stay Eino's own.
//
// The state the deltas apply to is the run's input state when it is a JSON
// object; otherwise the first value a run publishes is sent as a
// STATE_SNAPSHOT of an object holding it (and the later ones as deltas on
// that). ctx is the context Eino gave the tool or agent; tools running in
// parallel may publish at once.
func PublishSessionValue(ctx context.Context, key string, value any) error {
	p, ok := ctx.Value(publisherKey{}).(*publisher)
	if !ok {
		return ErrNotInARun
	}
	data, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("eino: session value %q: %w", key, err)
	}
	adk.AddSessionValue(ctx, key, value)
	return p.publish(key, data)
}

type publisherKey struct{}

// publisher sends a run's published session values as its state.
type publisher struct {
	em *server.Emitter
	mu sync.Mutex
	// object: the client's state is an object the deltas may add to (the
	// input's, or the snapshot sent).
	object bool
}

func newPublisher(em *server.Emitter, state json.RawMessage) *publisher {
	s := bytes.TrimSpace(state)
	return &publisher{em: em, object: len(s) > 0 && s[0] == '{'}
}

func (p *publisher) publish(key string, value json.RawMessage) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.object {
		snap, err := json.Marshal(map[string]json.RawMessage{key: value})
		if err != nil {
			return err
		}
		if err := p.em.Emit(agui.NewStateSnapshot(snap)); err != nil {
			return err
		}
		p.object = true
		return nil
	}
	// "add" on an object member sets it, whether it was there or not.
	return p.em.Emit(agui.NewStateDelta(agui.JSONPatch{&agui.AddOperation{Path: "/" + escapePointer(key), Value: value}}))
}

// escapePointer escapes key as one JSON Pointer reference token (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}
