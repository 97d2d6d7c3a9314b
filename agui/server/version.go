package server

import (
	"bytes"
	"errors"
	"net/http"
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

// A reader of a durable run's events or of a thread's stream (a GET, which
// has no input) declares its version in the query parameter
// protocolVersion, answered as a POST's declaration is; without one it gets
// the run as the log holds it, the stream its poster was served (usually
// the same page, reloaded), and a replayed run declares the current
// version. The parameter is this server's, as the routes are: the spec
// defines neither.
const queryProtocolVersion = "protocolVersion"

// readerVersion is what a GET reader declared (protover.Serve), or the zero
// Served (no translation) when it declared nothing. A newer major is an
// error, answered 400 UNSUPPORTED_PROTOCOL_VERSION like a POST's.
func (cfg *handlerConfig) readerVersion(r *http.Request) (protover.Served, error) {
	q := r.URL.Query()
	if !q.Has(queryProtocolVersion) {
		return protover.Served{}, nil
	}
	v := q.Get(queryProtocolVersion)
	s, err := protover.Serve(&v)
	if err != nil {
		return s, err
	}
	if s.Warning != "" {
		cfg.run.logger.WarnContext(r.Context(), "agui/server: "+s.Warning, "method", r.Method, "path", r.URL.Path)
	}
	return s, nil
}

// declares is the version a replayed run's RUN_STARTED declares for s.
func declares(s protover.Served) string {
	if s.Downgrade {
		return protover.V1_0.String()
	}
	return agui.ProtocolVersion
}

// downgradeLogged returns a logged event (its JSON) as a 1.0 reader gets
// it: without the members 1.1 added, and a RUN_STARTED declaring 1.0. Most
// events carry neither and are returned as they are, undecoded; the rest
// are decoded and encoded again. lost names what was dropped.
func downgradeLogged(data []byte) (out []byte, lost []string, err error) {
	started := bytes.Contains(data, []byte(`"RUN_STARTED"`))
	if !started && !bytes.Contains(data, []byte(`"encryptedValueType"`)) {
		return data, nil, nil
	}
	ev, err := agui.DecodeEvent(data)
	if err != nil {
		return nil, nil, err
	}
	ev, lost = protover.StripEvent(ev)
	if rs, ok := ev.(*agui.RunStarted); ok && rs.ProtocolVersion != nil && *rs.ProtocolVersion != protover.V1_0.String() {
		if v, err := protover.Parse(*rs.ProtocolVersion); err == nil && v.Cmp(protover.V1_0) > 0 {
			c := *rs
			c.ProtocolVersion = new(protover.V1_0.String())
			ev = &c
		}
	}
	if !started && lost == nil {
		return data, nil, nil
	}
	out, err = agui.AppendEvent(nil, ev)
	return out, lost, err
}
