package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/agui-go/sdk/agui"
)

// decodeInput decodes a request body as the handler is configured to:
// strictly, then again without its top-level nulls if that failed (the
// default), strictly ([WithStrictInput]), or leniently ([WithLenientInput]).
func (h *handler[S]) decodeInput(r *http.Request, body []byte) (*agui.RunAgentInput, error) {
	if h.cfg.input != lenientInput {
		input, err := agui.DecodeRunAgentInput(body)
		if err == nil || h.cfg.input == strictInput {
			return input, err
		}
		// Only a body the strict decoder refused pays for the rewrite, and
		// only one it changes is decoded again: a body from a current
		// client costs one decode, as with WithStrictInput.
		stripped, dropped := omitTopLevelNulls(body)
		// `state: null` is no legacy: the protocol allows it for good.
		dropped = slices.DeleteFunc(dropped, func(name string) bool { return name == "state" })
		if len(dropped) == 0 {
			return nil, err
		}
		if input, err = agui.DecodeRunAgentInput(stripped); err != nil {
			return nil, err
		}
		h.cfg.run.logger.InfoContext(r.Context(), "agui/server: read legacy nulls in RunAgentInput as absent (WithStrictInput refuses them)",
			"threadId", input.ThreadID, "runId", input.RunID, "members", dropped)
		return input, nil
	}
	body, dropped := omitTopLevelNulls(body)
	input, warnings, err := agui.DecodeOptions{Lenient: true}.DecodeRunAgentInput(body)
	if err != nil {
		return nil, err
	}
	if log := h.cfg.run.logger; len(dropped)+len(warnings) > 0 {
		repairs := make([]string, 0, len(dropped)+len(warnings))
		for _, name := range dropped {
			repairs = append(repairs, agui.DecodeWarning{Path: "/" + name, Message: "converted legacy null to absent"}.String())
		}
		for _, w := range warnings {
			repairs = append(repairs, w.String())
		}
		log.DebugContext(r.Context(), "agui/server: repaired a lenient RunAgentInput",
			"threadId", input.ThreadID, "runId", input.RunID, "repairs", repairs)
	}
	return input, nil
}

// requiredInput are the members of RunAgentInput a null cannot stand in for:
// a null there stays an error, reported by the decoder.
var requiredInput = map[string]bool{"threadId": true, "runId": true, "messages": true}

// omitTopLevelNulls returns body without the top-level members of the
// RunAgentInput object whose value is null, other than the required ones,
// and the names of the members it dropped. This is what the reference client
// does to every input before validating it (omitOptionalNulls); the
// lenient decoder then forgives the protocol's listed legacy nulls deeper in.
//
// A body that is not a JSON object, or has no such null, is returned as it
// is, so every error is reported by the decoder against the bytes the client
// sent. When members are dropped, the object is rewritten with the remaining
// members in their order and their values byte for byte; only the byte
// offsets of later errors shift.
func omitTopLevelNulls(body []byte) ([]byte, []string) {
	if !bytes.Contains(body, []byte("null")) {
		return body, nil
	}
	type member struct {
		key   string
		value json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return body, nil
	}
	var members []member
	var dropped []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return body, nil
		}
		key, ok := tok.(string)
		if !ok {
			return body, nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return body, nil
		}
		if string(v) == "null" && !requiredInput[key] {
			// The last occurrence of a member wins, as in the decoder: a
			// null given last makes the member absent.
			members = slices.DeleteFunc(members, func(m member) bool { return m.key == key })
			dropped = append(dropped, key)
			continue
		}
		members = append(members, member{key, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || len(dropped) == 0 {
		return body, nil
	}
	if _, err := dec.Token(); err != io.EOF { // trailing data: let the decoder say so
		return body, nil
	}
	out := make([]byte, 0, len(body))
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(m.key) // a string always encodes
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}'), dropped
}
