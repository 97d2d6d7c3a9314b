package server

import (
	"bytes"
	"encoding/json"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/jsonpatch"
	"github.com/agui-go/sdk/internal/jsontree"
)

// This file holds the typed state of a run. PublishState sends STATE_DELTA
// instead of STATE_SNAPSHOT with the RFC 6902 diff of package jsonpatch; that
// diff is always correct but not always minimal, so when it is not smaller
// than the snapshot the snapshot is sent instead, and an unfavourable shape
// costs size, never correctness.

// initState decodes the input's state into S. pre, when non-nil, is the state
// already decoded by the handler.
func (rc *RunContext[S]) initState(pre *S) error {
	raw := rc.input.State
	if raw == nil {
		return nil
	}
	if pre != nil {
		rc.state = *pre
	} else if err := json.Unmarshal(raw, &rc.state); err != nil {
		return serializationError(err)
	}
	tree, err := jsontree.Decode(raw)
	if err != nil {
		return serializationError(err)
	}
	rc.client, rc.known = tree, true
	return nil
}

// State returns the run's state: what the client sent, as changed by SetState
// and UpdateState. It is a shallow copy; maps and slices inside are shared.
func (rc *RunContext[S]) State() S {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	return rc.state
}

// SetState replaces the run's state. Nothing is sent until PublishState or
// PublishStateSnapshot.
func (rc *RunContext[S]) SetState(s S) {
	rc.stateMu.Lock()
	rc.state = s
	rc.stateMu.Unlock()
}

// UpdateState changes the run's state in place under the state's lock, which
// makes read-modify-write from several goroutines safe.
func (rc *RunContext[S]) UpdateState(f func(s *S)) {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	f(&rc.state)
}

// ChangeState changes the run's state with f, as [RunContext.UpdateState]
// does, and sends the change to the client, as [RunContext.PublishState]
// does, under one hold of the state's lock: concurrent changes each go out
// with their own effect, in the order they were made.
func (rc *RunContext[S]) ChangeState(f func(s *S)) error {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	f(&rc.state)
	return rc.publishLocked(false)
}

// PublishStateSnapshot emits STATE_SNAPSHOT with the whole state, encoded with
// encoding/json (failure: SERIALIZATION).
func (rc *RunContext[S]) PublishStateSnapshot() error {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	raw, tree, err := encodeTree(rc.state)
	if err != nil {
		return rc.Emitter.e.refuse(serializationError(err))
	}
	return rc.snapshot(raw, tree)
}

// PublishState sends the state to the client in the smaller form: a
// STATE_DELTA holding the RFC 6902 patch from the state the client last saw
// (the input's state, or the last one published), or a STATE_SNAPSHOT when the
// patch would not be smaller or the client's state is unknown. Nothing is sent
// when the state did not change. [RunContext.PublishStateDelta] always sends
// a delta.
func (rc *RunContext[S]) PublishState() error { return rc.publishState(false) }

// PublishStateDelta sends the state to the client as a STATE_DELTA, whatever
// its size: the RFC 6902 patch from the state the client last saw (the
// input's state, or the last one published), or from the empty object when
// the client sent no state and none was published, since an absent state
// means {} in the protocol. Nothing is sent when the state did not change.
//
// Use it when the client must receive changes rather than replacements: a
// snapshot replaces the client's whole state, so members the client holds
// and the agent does not know of would be lost, and a front end that
// animates changes sees a patch, never a wholesale swap.
func (rc *RunContext[S]) PublishStateDelta() error { return rc.publishState(true) }

// publishState is PublishState, or with forceDelta PublishStateDelta.
func (rc *RunContext[S]) publishState(forceDelta bool) error {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	return rc.publishLocked(forceDelta)
}

// publishLocked is publishState with the state's lock held.
func (rc *RunContext[S]) publishLocked(forceDelta bool) error {
	raw, tree, err := encodeTree(rc.state)
	if err != nil {
		return rc.Emitter.e.refuse(serializationError(err))
	}
	base := rc.client
	if !rc.known {
		if !forceDelta {
			return rc.snapshot(raw, tree)
		}
		base = map[string]any{}
	}
	patch, err := jsonpatch.DiffValues(base, tree)
	if err != nil {
		return rc.Emitter.e.refuse(serializationError(err))
	}
	if len(patch) == 0 {
		return nil
	}
	if !forceDelta {
		if size, err := jsonpatch.Size(patch); err != nil || size >= len(raw) {
			return rc.snapshot(raw, tree)
		}
	}
	if err := rc.Emitter.e.emit(agui.NewStateDelta(patch), nil); err != nil {
		return err
	}
	rc.client, rc.known = tree, true
	return nil
}

func (rc *RunContext[S]) snapshot(raw json.RawMessage, tree any) error {
	if err := rc.Emitter.e.emit(agui.NewStateSnapshot(raw), nil); err != nil {
		return err
	}
	rc.client, rc.known = tree, true
	return nil
}

// encodeTree encodes v with encoding/json and decodes the result into generic
// JSON (numbers kept as json.Number), returning the compact encoding too.
func encodeTree(v any) (json.RawMessage, any, error) {
	raw, err := marshalJSON(v)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, nil, err
	}
	raw = buf.Bytes()
	tree, err := jsontree.Decode(raw)
	return raw, tree, err
}
