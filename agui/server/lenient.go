package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"

	"github.com/agui-go/sdk/agui"
)

// decodeInput decodes a request body as the handler is configured to:
// strictly ([WithStrictInput]); forgiving legacy nulls (the default); or
// forgiving what [agui.DecodeRunAgentInputLenient] forgives
// ([WithLenientInput]). A body that needed repairs is logged once, at level
// Info, with what was repaired.
func (h *handler[S]) decodeInput(r *http.Request, body []byte) (*agui.RunAgentInput, error) {
	if h.cfg.strict {
		return agui.DecodeRunAgentInput(body)
	}
	body, dropped := omitTopLevelNulls(body)
	var input *agui.RunAgentInput
	var warnings []agui.DecodeWarning
	var err error
	if h.cfg.lenient {
		input, warnings, err = agui.DecodeRunAgentInputLenient(body)
	} else {
		input, warnings, err = decodeForgivingNulls(body)
	}
	if err != nil {
		return nil, err
	}
	if log := h.cfg.run.logger; len(dropped)+len(warnings) > 0 && log.Enabled(r.Context(), slog.LevelInfo) {
		repairs := make([]string, 0, len(dropped)+len(warnings))
		for _, name := range dropped {
			repairs = append(repairs, agui.DecodeWarning{Path: "/" + name, Message: legacyNull}.String())
		}
		for _, w := range warnings {
			repairs = append(repairs, w.String())
		}
		log.InfoContext(r.Context(), "agui/server: read legacy nulls in a RunAgentInput as absent",
			"threadId", input.ThreadID, "runId", input.RunID, "repairs", repairs)
	}
	return input, nil
}

// legacyNull is the message of the lenient decoder's repair of a null
// where the protocol wants the member omitted.
const legacyNull = "converted legacy null to absent"

// decodeForgivingNulls decodes body strictly, except that the legacy nulls
// the lenient decoder forgives deeper in (a message's "name": null, say)
// read as absent too: a body the strict decoder refuses is decoded
// leniently, and kept if converting nulls was all the lenient decoder had to
// do. Anything else (an unknown member, an unknown role) is still refused,
// with the strict decoder's error. Only a refused body is decoded twice.
func decodeForgivingNulls(body []byte) (*agui.RunAgentInput, []agui.DecodeWarning, error) {
	input, err := agui.DecodeRunAgentInput(body)
	if err == nil {
		return input, nil, nil
	}
	lenient, warnings, lerr := agui.DecodeRunAgentInputLenient(body)
	if lerr != nil || len(warnings) == 0 {
		return nil, nil, err
	}
	for _, w := range warnings {
		if w.Message != legacyNull {
			return nil, nil, err
		}
	}
	return lenient, warnings, nil
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
	changed := false
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
			changed = true
			if key != "state" { // a null state is no repair: it is the protocol's own tolerance
				dropped = append(dropped, key)
			}
			continue
		}
		members = append(members, member{key, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || !changed {
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
