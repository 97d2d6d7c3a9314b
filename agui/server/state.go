package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// This file holds the typed state of a run and the RFC 6902 diff that lets
// PublishState send STATE_DELTA instead of STATE_SNAPSHOT. The diff is small
// on purpose: it walks two decoded JSON documents, recursing into objects and
// into the common prefix of arrays, and otherwise replaces; what it produces is
// always correct, and when it is not smaller than the snapshot the snapshot is
// sent instead, so its only cost when the shape is unfavourable is size, never
// correctness.

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
		return SerializationError(err)
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return SerializationError(err)
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

// PublishStateSnapshot emits STATE_SNAPSHOT with the whole state, encoded with
// encoding/json (failure: SERIALIZATION).
func (rc *RunContext[S]) PublishStateSnapshot() error {
	rc.stateMu.Lock()
	defer rc.stateMu.Unlock()
	raw, tree, err := encodeTree(rc.state)
	if err != nil {
		return SerializationError(err)
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
	raw, tree, err := encodeTree(rc.state)
	if err != nil {
		return SerializationError(err)
	}
	base := rc.client
	if !rc.known {
		if !forceDelta {
			return rc.snapshot(raw, tree)
		}
		base = map[string]any{}
	}
	patch, err := diffTrees(nil, "", base, tree)
	if err != nil {
		return SerializationError(err)
	}
	if len(patch) == 0 {
		return nil
	}
	if !forceDelta {
		if size, err := patchSize(patch); err != nil || size >= len(raw) {
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
	tree, err := decodeTree(raw)
	return raw, tree, err
}

func decodeTree(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// diffTrees appends to ops the operations that turn a into b, both decoded
// generic JSON, at the JSON Pointer path.
func diffTrees(ops agui.JSONPatch, path string, a, b any) (agui.JSONPatch, error) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		var err error
		for _, k := range sortedKeys(av) {
			p := path + "/" + escapePointer(k)
			if bk, ok := bv[k]; ok {
				if ops, err = diffTrees(ops, p, av[k], bk); err != nil {
					return nil, err
				}
			} else {
				ops = append(ops, &agui.RemoveOperation{Path: p})
			}
		}
		for _, k := range sortedKeys(bv) {
			if _, ok := av[k]; ok {
				continue
			}
			v, err := json.Marshal(bv[k])
			if err != nil {
				return nil, err
			}
			ops = append(ops, &agui.AddOperation{Path: path + "/" + escapePointer(k), Value: v})
		}
		return ops, nil
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		n := min(len(av), len(bv))
		var err error
		for i := range n {
			if ops, err = diffTrees(ops, path+"/"+strconv.Itoa(i), av[i], bv[i]); err != nil {
				return nil, err
			}
		}
		// Remove from the end, so that earlier indices stay valid.
		for i := len(av) - 1; i >= len(bv); i-- {
			ops = append(ops, &agui.RemoveOperation{Path: path + "/" + strconv.Itoa(i)})
		}
		for i := len(av); i < len(bv); i++ {
			v, err := json.Marshal(bv[i])
			if err != nil {
				return nil, err
			}
			ops = append(ops, &agui.AddOperation{Path: path + "/" + strconv.Itoa(i), Value: v})
		}
		return ops, nil
	}
	if reflect.DeepEqual(a, b) {
		return ops, nil
	}
	v, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	return append(ops, &agui.ReplaceOperation{Path: path, Value: v}), nil
}

// patchSize is the length of the patch's JSON encoding.
func patchSize(patch agui.JSONPatch) (int, error) {
	var buf []byte
	n := 1 // '['
	for i, op := range patch {
		var err error
		if buf, err = op.AppendJSON(buf[:0]); err != nil {
			return 0, err
		}
		if i > 0 {
			n++
		}
		n += len(buf)
	}
	return n + 1, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escapePointer escapes one reference token of a JSON Pointer (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
