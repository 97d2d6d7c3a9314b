package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// Profile selects the rules a captured stream is checked against.
type Profile uint8

const (
	// ClientProfile checks a stream as a consuming client does: lenient
	// decoding (unknown event types dropped, unknown members stripped, each
	// with a warning), chunk expansion, then the [Client] verifier.
	ClientProfile Profile = iota
	// ServerProfile checks a stream as a producer must emit it: strict
	// decoding, then the [Server] verifier (chunks included).
	ServerProfile
)

// String returns "client" or "server".
func (p Profile) String() string {
	switch p {
	case ClientProfile:
		return "client"
	case ServerProfile:
		return "server"
	}
	return "profile(" + strconv.Itoa(int(p)) + ")"
}

// Report is the verdict on a captured stream.
type Report struct {
	// Events is the number of documents read.
	Events int
	// Index is the position of the first rejected document, counting every
	// document (dropped ones included); len(docs) when the stream was
	// rejected at its end (truncated); -1 when it was accepted.
	Index int
	// Offset is where the rejected document starts in the input, when the
	// check was given offsets ([CheckStreamAt]); -1 otherwise, and for an
	// accepted or truncated stream.
	Offset int64
	// Event is the "type" of the rejected document as it was sent, or ""
	// (accepted, truncated, or no type).
	Event string
	// Err is nil when the stream was accepted, else a *Error (an ordering
	// rule, or ErrTruncated), an *agui.DecodeError, or (server profile) an
	// *agui.UnknownEventTypeError.
	Err error
	// Protocol is the protocol version the stream was checked against
	// ("1.0" or "1.1"; see CheckStreamVersion).
	Protocol string
	// Warnings are the repairs of lenient decoding (client profile), in
	// order: the first MaxWarnings of them. Each is an agui.WarnStripped
	// (a member removed or normalised) or an agui.WarnDropped (an event of
	// an unknown type), with the document's Index and, given offsets, its
	// Offset.
	Warnings []agui.Warning
	// MoreWarnings counts the warnings past the first MaxWarnings, which are
	// not kept: a long stream with a repair in every event must not make the
	// report as large as the stream.
	MoreWarnings int
}

// MaxWarnings is how many warnings a [Report] keeps.
const MaxWarnings = 100

func (r *Report) warn(w agui.Warning) {
	if len(r.Warnings) < MaxWarnings {
		r.Warnings = append(r.Warnings, w)
	} else {
		r.MoreWarnings++
	}
}

// OK reports whether the stream was accepted.
func (r *Report) OK() bool { return r.Err == nil }

// Check decodes and verifies a captured stream given as one JSON document
// per event, in stream order, under profile p.
func Check(p Profile, docs [][]byte) *Report {
	r, _ := CheckStream(p, func(yield func([]byte, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	})
	return r
}

// CheckStream is [Check] for a stream read as it is checked, in memory that
// does not grow with its length: docs yields each document (which need stay
// valid only until the next) or an error reading the input. The stream is
// read to its end even after a rejection, to count its events; an error from
// docs ends the check and is returned, with no report.
func CheckStream(p Profile, docs iter.Seq2[[]byte, error]) (*Report, error) {
	return CheckStreamAt(p, docs, nil)
}

// CheckStreamAt is [CheckStream] for input whose reader knows where each
// document starts: at, called while a document is being checked, returns
// its byte offset in the input, which the report gives with each warning and
// with the rejection. A nil at gives no offsets (-1). The protocol version
// checked against is the stream's own declaration (see CheckStreamVersion).
func CheckStreamAt(p Profile, docs iter.Seq2[[]byte, error], at func() int64) (*Report, error) {
	return CheckStreamVersion(p, "", docs, at)
}

// CheckStreamVersion is [CheckStreamAt] against protocol version (the
// Protocols), or, when version is "", against the version the stream's first
// RUN_STARTED declares: 1.0 when it declares 1.0 (or an older version), else
// this SDK's, agui.ProtocolVersion, which is also what a stream that
// declares nothing is held to. Against 1.0 the members 1.1 added
// (encryptedValueType) are foreign: the server profile rejects the event
// that carries one, as a 1.0 producer must not send it; the client profile
// strips them with a warning, as a 1.0 consumer does. The version checked
// against is the report's Protocol.
func CheckStreamVersion(p Profile, version string, docs iter.Seq2[[]byte, error], at func() int64) (*Report, error) {
	if at == nil {
		at = func() int64 { return -1 }
	}
	r := &Report{Index: -1, Offset: -1, Protocol: version}
	if version != "" && !slices.Contains(Protocols(), version) {
		return nil, fmt.Errorf("verify: protocol version %q is not one of %s", version, strings.Join(Protocols(), ", "))
	}
	// The server profile runs the engine itself rather than Server, which
	// the agui_noverify tag empties: that tag switches verification off in
	// a server, not in a linter asked to verify.
	var c Client
	s := engine{server: true}
	observe, finish := c.Observe, c.Finish
	if p == ServerProfile {
		observe, finish = s.observe, s.finish
	}
	i := -1
	for doc, err := range docs {
		if err != nil {
			return nil, err
		}
		i++
		if r.Err != nil {
			continue // rejected: only counting
		}
		var ev agui.Event
		if p == ServerProfile {
			ev, err = agui.DecodeEvent(doc)
		} else {
			var warns []agui.DecodeWarning
			ev, warns, err = agui.DecodeOptions{Lenient: true}.DecodeEvent(doc)
			for _, w := range warns {
				r.warn(agui.Warning{Kind: agui.WarnStripped, Index: i, Offset: at(), Message: w.String()})
			}
			if errors.Is(err, agui.ErrUnknownEventType) {
				r.warn(agui.Warning{Kind: agui.WarnDropped, Index: i, Offset: at(), Message: "dropped: " + err.Error()})
				continue
			}
		}
		if err == nil && r.Protocol == "" {
			r.Protocol = declaredProtocol(ev)
		}
		if err == nil && r.Protocol == "1.0" {
			var lost []string
			if ev, lost = protover.StripEvent(ev); lost != nil {
				if p == ServerProfile {
					// The offset is the member's first spelling in the
					// document, which is lost[0]'s but for a reordered one.
					off := max(bytes.Index(doc, []byte(`"encryptedValueType"`)), 0)
					err = &agui.DecodeError{Path: lost[0], Offset: off, Reason: "unknown property (protocol 1.0 has no encryptedValueType; it came in 1.1)"}
				} else {
					for _, ptr := range lost {
						r.warn(agui.Warning{Kind: agui.WarnStripped, Index: i, Offset: at(),
							Message: "stripped " + ptr + ": protocol 1.0 has no encryptedValueType (it came in 1.1)"})
					}
				}
			}
		}
		if err == nil {
			err = observe(ev)
		}
		if err != nil {
			r.Index, r.Err, r.Offset = i, err, at()
			r.Event = typeOf(doc)
		}
	}
	r.Events = i + 1
	if r.Protocol == "" {
		r.Protocol = agui.ProtocolVersion
	}
	if r.Err == nil {
		if err := finish(); err != nil {
			r.Index, r.Err = r.Events, err
		}
	}
	return r, nil
}

// Protocols lists the protocol versions a stream can be checked against.
func Protocols() []string { return []string{"1.0", agui.ProtocolVersion} }

// declaredProtocol is the version a stream whose first event is ev is
// checked against: 1.0 for a RUN_STARTED declaring 1.0 or older, the
// current version for any other event or declaration.
func declaredProtocol(ev agui.Event) string {
	rs, ok := ev.(*agui.RunStarted)
	if ok && rs.ProtocolVersion != nil {
		if v, err := protover.Parse(*rs.ProtocolVersion); err == nil && v.Cmp(protover.V1_1) < 0 {
			return "1.0"
		}
	}
	return agui.ProtocolVersion
}

// typeOf reads the "type" member of a document that may not decode.
func typeOf(doc []byte) string {
	var v struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(doc, &v) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(v.Type, &s) != nil {
		return ""
	}
	return s
}
