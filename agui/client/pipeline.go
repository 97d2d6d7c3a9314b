package client

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/protover"
)

// Pipeline turns the frames of one response into the events application
// code sees, in the reference client's order:
//
//  1. the compatibility boundary: legacy binary content parts are upgraded
//     and retired THINKING_* events translated (legacy nulls are read as
//     absent by the lenient decoder, with a warning);
//  2. lenient decoding: unknown event types are dropped and unknown members
//     stripped, each with a warning; a malformed known member is fatal;
//  3. the era shim of a ≤ 0.0.57 peer: SUBAGENT_* events dropped with a
//     warning and subagent tags removed;
//  4. chunk expansion;
//  5. client-profile verification (verify.Client).
//
// At the end of the body, Finish reports a run left open as an error
// wrapping verify.ErrTruncated: a stream that stops inside a run did not
// succeed, whatever the reference client says.
//
// A Pipeline is for one stream and not safe for concurrent use. Run uses
// one per request; it is exported for programs that read frames from
// elsewhere (a capture, another transport).
type Pipeline struct {
	own      protover.Version  // PipelineProtocolVersion
	peer     *protover.Version // PipelineMaxProtocolVersion
	era      era
	warn     func(agui.Warning)
	index    int // of the frame being pushed
	frames   int
	thinking thinking
	expander chunks.Expander
	verifier verify.Client
	buf      []agui.Event
	failed   error
	slab     deltaSlab
	dec      agui.StreamDecoder // the general way, lenient, reusing repeated ids
	protoJS  []byte             // the JSON form of the protobuf frame being pushed
}

// PipelineOption configures a Pipeline.
type PipelineOption func(*Pipeline) error

// PipelineMaxProtocolVersion sets the newest protocol version the peer
// speaks (default: the pipeline's own); at 0.0.57 or older the subagent
// shim is on.
func PipelineMaxProtocolVersion(v string) PipelineOption {
	return func(p *Pipeline) error {
		ver, err := protover.Parse(v)
		if err != nil {
			return fmt.Errorf("agui client: %w", err)
		}
		p.peer = &ver
		return nil
	}
}

// PipelineProtocolVersion sets the version the pipeline reads as, as
// WithProtocolVersion does for a client: at 1.0, the members 1.1 added are
// stripped with a warning, and a 1.1 producer draws the newer-version
// warning.
func PipelineProtocolVersion(v string) PipelineOption {
	return func(p *Pipeline) error {
		ver, err := parseOwn(v)
		if err != nil {
			return err
		}
		p.own = ver
		return nil
	}
}

// PipelineWarnings sets the function that receives each warning.
func PipelineWarnings(f func(agui.Warning)) PipelineOption {
	return func(p *Pipeline) error { p.warn = f; return nil }
}

// NewPipeline returns a Pipeline for one stream.
func NewPipeline(opts ...PipelineOption) (*Pipeline, error) {
	p := &Pipeline{
		own:  protover.Current,
		warn: func(agui.Warning) {},
		dec:  agui.StreamDecoder{Options: agui.DecodeOptions{Lenient: true}},
	}
	for _, o := range opts {
		if err := o(p); err != nil {
			return nil, err
		}
	}
	peer := p.own
	if p.peer != nil {
		peer = *p.peer
	}
	p.era = eraOf(p.own, peer)
	return p, nil
}

// StreamError is the failure of a stream: the frame it happened at and why.
// Err is an *agui.DecodeError (a malformed event), a *verify.Error (an
// ordering rule, or ErrTruncated at the end), a *chunks.Error, or a
// transport error; errors.Is and errors.As reach it.
type StreamError struct {
	Index int    // 0-based frame index; the frame count for truncation
	Type  string // the event type involved, when known
	Err   error
}

func (e *StreamError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("agui client: frame %d (%s): %v", e.Index, e.Type, e.Err)
	}
	return fmt.Sprintf("agui client: frame %d: %v", e.Index, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

func (p *Pipeline) warnf(kind agui.WarningKind, msg string) {
	p.warn(agui.Warning{Kind: kind, Index: p.index, Offset: -1, Message: msg})
}

// Push runs one frame through the pipeline and calls deliver for each event
// it yields (none, when the frame was dropped; several, when chunks expand).
// deliver returning false stops early; Push then returns nil with more
// events possibly undelivered. A non-nil error is final: every later call
// returns it.
func (p *Pipeline) Push(frame []byte, deliver func(agui.Event) bool) error {
	if p.failed != nil {
		return p.failed
	}
	p.index = p.frames
	p.frames++
	ev, err := p.decode(frame)
	if err != nil {
		p.failed = &StreamError{Index: p.index, Type: typeOf(frame), Err: err}
		return p.failed
	}
	if ev == nil {
		return nil
	}
	if p.era.noSub {
		if ev = p.downgradeSubagents(ev); ev == nil {
			return nil
		}
	}
	if rs, ok := ev.(*agui.RunStarted); ok && rs.ProtocolVersion != nil {
		if w := p.era.checkProducerVersion(*rs.ProtocolVersion); w != "" {
			p.warnf(WarnVersion, w)
		}
	}
	if p.era.v10In {
		var lost []string
		if ev, lost = protover.StripEvent(ev); lost != nil {
			for _, ptr := range lost {
				p.warnf(agui.WarnStripped, "stripped unknown property "+ptr+" of "+string(ev.Type())+
					" (added in protocol 1.1; this client speaks "+p.era.own.String()+")")
			}
		}
	}
	if p.expander.PassesThrough(ev) {
		// Expansion would pass ev on alone: skip the buffer, whose
		// stores and clearing cost write barriers while the GC marks.
		if err := p.verifier.Observe(ev); err != nil {
			p.failed = &StreamError{Index: p.index, Type: string(ev.Type()), Err: err}
			return p.failed
		}
		deliver(ev)
		return nil
	}
	p.buf, err = p.expander.Expand(p.buf[:0], ev)
	if err != nil {
		p.failed = &StreamError{Index: p.index, Type: string(ev.Type()), Err: err}
		return p.failed
	}
	for _, out := range p.buf {
		if err := p.verifier.Observe(out); err != nil {
			p.failed = &StreamError{Index: p.index, Type: string(out.Type()), Err: err}
			return p.failed
		}
		if !deliver(out) {
			break
		}
	}
	clear(p.buf)
	return nil
}

// PushProto is Push for a frame of the protobuf binding: msg is one
// ag_ui.Event message, without its length prefix. The message is turned
// into the event's JSON form and pushed as an SSE frame would be, so the
// two bindings share every stage and every rule (the reference client skips
// verification for protobuf; this one does not). An envelope whose only arm
// is unknown to this SDK is dropped with an agui.WarnDropped warning, as an
// unknown "type" is; a message that does not parse is the stream's failure.
func (p *Pipeline) PushProto(msg []byte, deliver func(agui.Event) bool) error {
	if p.failed != nil {
		return p.failed
	}
	var err error
	p.protoJS, err = agui.EventProtoToJSON(p.protoJS[:0], msg)
	if err == nil {
		return p.Push(p.protoJS, deliver)
	}
	p.index = p.frames
	p.frames++
	var unknown *agui.UnknownEventTypeError
	if errors.As(err, &unknown) {
		p.warnf(agui.WarnDropped, "dropping an unrecognised event (the "+unknown.Type+"): the protocol does not describe it")
		return nil
	}
	p.failed = &StreamError{Index: p.index, Err: err}
	return p.failed
}

// Finish reports the end of the body: nil when every run ended, else an
// error wrapping verify.ErrTruncated (or the failure already reported).
func (p *Pipeline) Finish() error {
	if p.failed != nil {
		return p.failed
	}
	if err := p.verifier.Finish(); err != nil {
		p.failed = &StreamError{Index: p.frames, Err: err}
		return p.failed
	}
	return nil
}

// decode is stages 1 and 2: nil, nil for a dropped frame.
func (p *Pipeline) decode(frame []byte) (agui.Event, error) {
	if ev := p.slab.fastDelta(frame); ev != nil {
		return ev, nil
	}
	if mayHoldBinary(frame) {
		var warns []string
		frame, warns = upgradeBinaryEvent(frame)
		for _, w := range warns {
			p.warnf(WarnLegacy, w)
		}
	}
	ev, warns, err := p.dec.DecodeEvent(frame)
	if err != nil {
		return p.unknown(frame, err)
	}
	for _, w := range warns {
		p.warnf(agui.WarnStripped, w.String()+" on "+string(ev.Type()))
	}
	return ev, nil
}

// unknown handles a frame the decoder refused: a retired THINKING_* event
// is translated, another unknown type dropped with a warning; any other
// error is the stream's failure.
func (p *Pipeline) unknown(frame []byte, err error) (agui.Event, error) {
	var unknown *agui.UnknownEventTypeError
	if errors.As(err, &unknown) {
		if !strings.HasPrefix(unknown.Type, "THINKING_") {
			p.warnf(agui.WarnDropped, "dropping unrecognised event '"+unknown.Type+"': the protocol does not describe it")
			return nil, nil
		}
		out, twarns, ok, terr := p.thinking.translate(unknown.Type, frame)
		if !ok {
			p.warnf(agui.WarnDropped, "dropping unrecognised event '"+unknown.Type+"': the protocol does not describe it")
			return nil, nil
		}
		if terr != nil {
			return nil, terr
		}
		for _, w := range twarns {
			p.warnf(WarnLegacy, w)
		}
		ev, warns, err := p.dec.DecodeEvent(out)
		if err != nil {
			return nil, err
		}
		for _, w := range warns {
			p.warnf(agui.WarnStripped, w.String()+" on "+string(ev.Type()))
		}
		return ev, nil
	}
	return nil, err
}

// typeOf finds the "type" of a frame for error messages, without decoding.
func typeOf(frame []byte) string {
	i := strings.Index(string(frame), `"type"`)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(string(frame[i+len(`"type"`):]), " \t\r\n:")
	if !strings.HasPrefix(rest, `"`) {
		return ""
	}
	end := strings.IndexByte(rest[1:], '"')
	if end < 0 || end > 64 {
		return ""
	}
	return rest[1 : 1+end]
}
