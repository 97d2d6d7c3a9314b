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

// decodeInput decodes a request body as the handler is configured to.
//
// By default the body is decoded strictly, and only a body the strict
// decoder refused pays for a second look: without its top-level nulls, and
// leniently, kept if reading legacy nulls as absent was the only repair the
// lenient decoder made (an unknown member or role is still refused, with the
// strict decoder's error). Such a body is logged once, at level Info, with
// what was repaired. [WithStrictInput] stops after the strict decode;
// [WithLenientInput] forgives everything the lenient decoder forgives and
// logs its repairs the same way.
func (h *handler[S]) decodeInput(r *http.Request, body []byte) (*agui.RunAgentInput, error) {
	lenient := agui.DecodeOptions{Lenient: true}
	if h.cfg.input == lenientInput {
		body, dropped := omitTopLevelNulls(body)
		input, warnings, err := lenient.DecodeRunAgentInput(body)
		if err != nil {
			return nil, err
		}
		h.logRepairs(r, "agui/server: repaired a RunAgentInput (WithLenientInput)", input, dropped, warnings)
		return input, nil
	}
	input, err := agui.DecodeRunAgentInput(body)
	if err == nil || h.cfg.input == strictInput {
		return input, err
	}
	stripped, dropped := omitTopLevelNulls(body)
	repaired, warnings, lerr := lenient.DecodeRunAgentInput(stripped)
	if lerr != nil || len(dropped)+len(warnings) == 0 {
		return nil, err
	}
	for _, w := range warnings {
		if w.Message != legacyNull {
			return nil, err
		}
	}
	h.logRepairs(r, "agui/server: read legacy nulls in a RunAgentInput as absent (WithStrictInput refuses them)", repaired, dropped, warnings)
	return repaired, nil
}

// logRepairs logs at level Info, once per request, what the decoder repaired in input:
// the top-level members dropped for being null, then the decoder's own
// warnings.
func (h *handler[S]) logRepairs(r *http.Request, msg string, input *agui.RunAgentInput, dropped []string, warnings []agui.DecodeWarning) {
	log := h.cfg.run.logger
	if len(dropped)+len(warnings) == 0 || !log.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	repairs := make([]string, 0, len(dropped)+len(warnings))
	for _, name := range dropped {
		msg := legacyNull
		if nullAsEmpty[name] != "" {
			msg = nullAsEmptyRepair
		}
		repairs = append(repairs, agui.DecodeWarning{Path: "/" + name, Message: msg}.String())
	}
	for _, w := range warnings {
		repairs = append(repairs, w.String())
	}
	log.InfoContext(r.Context(), msg, "threadId", input.ThreadID, "runId", input.RunID, "repairs", repairs)
}

// legacyNull is the message of the lenient decoder's repair of a null
// where the protocol wants the member omitted.
const legacyNull = "converted legacy null to absent"

// requiredInput are the members of RunAgentInput a null cannot stand in for:
// a null there stays an error, reported by the decoder.
var requiredInput = map[string]bool{"threadId": true, "runId": true}

// nullAsEmpty are the required members a null is read as the empty value
// for. A Go client encodes a nil slice as null (the community Go SDK's
// RunAgentInput.Messages has no omitempty), so a run it starts with no
// history, to set state or to reconnect, says "messages":null; the list being
// empty is all it means.
var nullAsEmpty = map[string]string{"messages": "[]"}

// nullAsEmptyRepair is the log's word for that reading.
const nullAsEmptyRepair = "read null as an empty list"

// omitTopLevelNulls returns body without the top-level members of the
// RunAgentInput object whose value is null, other than the required ones,
// with the null of a [nullAsEmpty] member replaced by its empty value, and
// the names of the members it dropped or replaced. This is what the reference client
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
		if string(v) == "null" && nullAsEmpty[key] != "" {
			members = slices.DeleteFunc(members, func(m member) bool { return m.key == key })
			members = append(members, member{key, json.RawMessage(nullAsEmpty[key])})
			changed = true
			dropped = append(dropped, key)
			continue
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
