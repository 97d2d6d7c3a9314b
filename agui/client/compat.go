package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// The compatibility boundary: retired shapes that 1.0 producers may still
// send are rewritten into their 1.0 replacements before decoding, as the
// reference client's always-on CompatibilityBoundary does. Both rewrites
// work on the raw JSON because the retired shapes have no Go type: a
// THINKING_* event is not an agui.Event and a {"type":"binary"} part is
// not an agui.ContentPart. They are off the hot path: a frame pays only a
// substring test unless it holds a legacy shape. Members of a rewritten
// object are re-encoded by encoding/json, so their order may change; their
// values are kept byte for byte.

// thinking translates the five retired THINKING_* events. It keeps the ids
// it minted, because the retired content and end events name no id.
type thinking struct {
	span, msg string
}

// translate rewrites one THINKING_* document as its REASONING_* equivalent
// and returns the new document and the warnings of the rewrite. ok is false
// when typ is not a retired type.
func (t *thinking) translate(typ string, doc []byte) (out []byte, warns []string, ok bool, err error) {
	var newType string
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil {
		return nil, nil, true, err
	}
	setID := func(id string) { obj["messageId"], _ = json.Marshal(id) }
	switch typ {
	case "THINKING_START":
		newType = "REASONING_START"
		t.span = agui.NewID()
		setID(t.span)
		if _, has := obj["title"]; has {
			delete(obj, "title")
			warns = append(warns, "THINKING_START: the title has no place in REASONING_START and was dropped")
		}
	case "THINKING_TEXT_MESSAGE_START":
		newType = "REASONING_MESSAGE_START"
		t.msg = agui.NewID()
		setID(t.msg)
		obj["role"] = json.RawMessage(`"reasoning"`)
	case "THINKING_TEXT_MESSAGE_CONTENT":
		newType = "REASONING_MESSAGE_CONTENT"
		if t.msg == "" {
			t.msg = agui.NewID()
			warns = append(warns, "THINKING_TEXT_MESSAGE_CONTENT outside a thinking message: minted id "+t.msg)
		}
		setID(t.msg)
	case "THINKING_TEXT_MESSAGE_END":
		newType = "REASONING_MESSAGE_END"
		if t.msg == "" {
			t.msg = agui.NewID()
			warns = append(warns, "THINKING_TEXT_MESSAGE_END outside a thinking message: minted id "+t.msg)
		}
		setID(t.msg)
		t.msg = ""
	case "THINKING_END":
		newType = "REASONING_END"
		if t.span == "" {
			t.span = agui.NewID()
			warns = append(warns, "THINKING_END outside a thinking span: minted id "+t.span)
		}
		setID(t.span)
		t.span = ""
	default:
		return nil, nil, false, nil
	}
	obj["type"], _ = json.Marshal(newType)
	out, err = json.Marshal(obj)
	warns = append([]string{"translated retired " + typ + " into " + newType}, warns...)
	return out, warns, true, err
}

// mayHoldBinary is the cheap test that keeps the binary upgrade off the hot
// path: only a document containing the word can hold a binary part. It
// looks for `binary"` rather than `"binary"`, a weaker test (any document
// with the second has the first) that is many times faster: a search whose
// first byte is a quote stops at every quote of the JSON, one starting
// with 'b' almost never.
func mayHoldBinary(doc []byte) bool {
	return bytes.Contains(doc, []byte(`binary"`))
}

// upgradeBinaryEvent upgrades legacy binary parts inside the messages an
// event carries (MESSAGES_SNAPSHOT.messages, RUN_STARTED.input.messages).
func upgradeBinaryEvent(doc []byte) ([]byte, []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(doc, &obj) != nil {
		return doc, nil // let the decoder report the malformed document
	}
	var typ string
	json.Unmarshal(obj["type"], &typ)
	var warns []string
	var changed bool
	switch typ {
	case "MESSAGES_SNAPSHOT":
		obj["messages"], changed, warns = upgradeMessages(obj["messages"], "/messages")
	case "RUN_STARTED":
		var in map[string]json.RawMessage
		if json.Unmarshal(obj["input"], &in) == nil && in != nil {
			var c bool
			in["messages"], c, warns = upgradeMessages(in["messages"], "/input/messages")
			if c {
				obj["input"], _ = json.Marshal(in)
				changed = true
			}
		}
	}
	if !changed {
		return doc, warns
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return doc, warns
	}
	return out, warns
}

// upgradeBinaryInput upgrades legacy binary parts in a RunAgentInput
// document (what `agui run --input` reads, or a caller's stored history).
func upgradeBinaryInput(doc []byte) ([]byte, []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(doc, &obj) != nil || obj == nil {
		return doc, nil
	}
	msgs, changed, warns := upgradeMessages(obj["messages"], "/messages")
	if !changed {
		return doc, warns
	}
	obj["messages"] = msgs
	out, err := json.Marshal(obj)
	if err != nil {
		return doc, warns
	}
	return out, warns
}

func upgradeMessages(raw json.RawMessage, at string) (json.RawMessage, bool, []string) {
	var msgs []map[string]json.RawMessage
	if raw == nil || json.Unmarshal(raw, &msgs) != nil {
		return raw, false, nil
	}
	var warns []string
	changed := false
	for i, m := range msgs {
		var parts []map[string]json.RawMessage
		if m == nil || json.Unmarshal(m["content"], &parts) != nil {
			continue
		}
		partChanged := false
		for j, p := range parts {
			var typ string
			if p == nil || json.Unmarshal(p["type"], &typ) != nil || typ != "binary" {
				continue
			}
			path := fmt.Sprintf("%s/%d/content/%d", at, i, j)
			np, w := upgradePart(p, path)
			if w != "" {
				warns = append(warns, w)
			}
			if np != nil {
				parts[j] = np
				partChanged = true
			}
		}
		if partChanged {
			m["content"], _ = json.Marshal(parts)
			changed = true
		}
	}
	if !changed {
		return raw, false, warns
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		return raw, false, warns
	}
	return out, true, warns
}

// upgradePart turns {type:"binary", mimeType, data|url|id, filename?} into
// the typed media part its mimeType names. An id-only part has no 1.0
// spelling: it is left alone (lenient decoding then drops it) with a
// warning.
func upgradePart(p map[string]json.RawMessage, path string) (map[string]json.RawMessage, string) {
	var mime string
	json.Unmarshal(p["mimeType"], &mime)
	kind := "document"
	for _, k := range []string{"image", "audio", "video"} {
		if strings.HasPrefix(mime, k+"/") {
			kind = k
		}
	}
	src := map[string]json.RawMessage{"mimeType": p["mimeType"]}
	switch {
	case p["data"] != nil:
		src["type"], src["value"] = json.RawMessage(`"data"`), p["data"]
	case p["url"] != nil:
		src["type"], src["value"] = json.RawMessage(`"url"`), p["url"]
	default:
		return nil, "at " + path + ": a legacy binary part with only an id cannot be upgraded to 1.0 content"
	}
	if src["mimeType"] == nil {
		delete(src, "mimeType")
	}
	out := map[string]json.RawMessage{"type": json.RawMessage(`"` + kind + `"`)}
	out["source"], _ = json.Marshal(src)
	if fn := p["filename"]; fn != nil {
		out["metadata"], _ = json.Marshal(map[string]json.RawMessage{"filename": fn})
	}
	return out, "at " + path + ": upgraded a legacy binary part to " + kind
}
