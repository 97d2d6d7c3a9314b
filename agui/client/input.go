package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agui-go/sdk/agui"
)

// DecodeInput reads a RunAgentInput document the way the client reads
// incoming events: legacy binary content parts are upgraded, unknown
// members stripped and legacy nulls read as absent, each with a warning
// (Index -1). A document is a template: a missing threadId or runId gets a
// fresh UUID and missing messages an empty list, so a file holding only
// messages is a valid input. A malformed known member is an error.
//
// The legacy binary part is upgraded whatever peer the input goes to, as
// the reference client's outgoing enforcement does; the reference does it
// silently (its history holds the retired shape until it is sent), while
// here the document is read into Go types, which cannot hold it, so the
// warning says what was rewritten. internal/interop
// (TestLegacyBinaryTowardACurrentPeer) pins both clients' behaviour.
func DecodeInput(data []byte) (*agui.RunAgentInput, []agui.Warning, error) {
	var warns []agui.Warning
	add := func(kind agui.WarningKind, msg string) {
		warns = append(warns, agui.Warning{Kind: kind, Index: -1, Offset: -1, Message: msg})
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, nil, fmt.Errorf("agui client: the input is not JSON: %w", err)
	}
	if obj == nil {
		return nil, nil, errors.New("agui client: the input is not a JSON object")
	}
	filled := false
	for _, k := range []string{"threadId", "runId"} {
		if _, ok := obj[k]; !ok {
			obj[k], _ = json.Marshal(agui.NewID())
			filled = true
		}
	}
	if _, ok := obj["messages"]; !ok {
		obj["messages"] = json.RawMessage("[]")
		filled = true
	}
	if filled {
		data, _ = json.Marshal(obj)
	}
	if mayHoldBinary(data) {
		var ws []string
		data, ws = upgradeBinaryInput(data)
		for _, w := range ws {
			add(WarnLegacy, w)
		}
	}
	in, dws, err := agui.DecodeOptions{Lenient: true}.DecodeRunAgentInput(data)
	if err != nil {
		return nil, nil, fmt.Errorf("agui client: invalid input: %w", err)
	}
	for _, w := range dws {
		add(agui.WarnStripped, w.String()+" in the input")
	}
	return in, warns, nil
}
