package server

import (
	"errors"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// serveVersion answers the protocolVersion input declares (see
// protover.Serve): a consumer of 1.0, or of none, gets a 1.0 stream; the
// current version and a newer minor get the current one; a newer major is
// refused, before RUN_STARTED (the handler answers it with HTTP 400
// UNSUPPORTED_PROTOCOL_VERSION, a Runner with the error).
func serveVersion(input *agui.RunAgentInput) (protover.Served, error) {
	s, err := protover.Serve(input.ProtocolVersion)
	if err != nil {
		return s, errors.New("agui/server: " + err.Error())
	}
	return s, nil
}

// downgrader returns the emitter's translation for a consumer of protocol
// 1.0: each event without the members 1.1 added. The loss is the spec's
// lossy downgrade, so each event that loses something is logged at level
// Warn with what it lost; a consumer that declared 1.0 would have stripped
// the same members itself, with a warning of its own per member.
func (r *Runner[S]) downgrader() func(agui.Event) agui.Event {
	return func(ev agui.Event) agui.Event {
		out, lost := protover.StripEvent(ev)
		if lost != nil {
			r.cfg.logger.WarnContext(r.parent, "agui/server: the consumer speaks protocol 1.0; dropped what 1.1 added",
				"threadId", r.input.ThreadID, "runId", r.input.RunID, "type", string(ev.Type()),
				"dropped", strings.Join(lost, ","))
		}
		return out
	}
}
