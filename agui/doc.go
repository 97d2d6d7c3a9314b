// Package agui holds the AG-UI 1.1 protocol types: the 31 events behind the
// sealed [Event] interface, [RunAgentInput] and everything nested in it, and
// their JSON codec.
//
// Almost everything here is generated from schema/events.json by the
// generator in gen/, a module of its own (files named *_gen.go). The codec uses no reflection:
// AppendJSON appends an event's compact JSON to a caller's buffer, and the
// decoders read a document in one pass.
//
// # Switching over events
//
// [Event] is sealed, and so is every union of the package; the enums
// ([EventType] and the others) are closed sets. A consumer switches over
// them, and the analyzer of package
// github.com/agui-go/sdk/analysis/exhaustive (the command
// cmd/agui-exhaustive) reports a switch that misses a variant, a default
// clause notwithstanding, so that a protocol version that adds an event
// shows every switch to update. A switch that handles only some events on
// purpose says so, with the reason, on the line above it:
//
//	//agui:nonexhaustive only the text matters to this printer
//	switch e := ev.(type) {
//	case *agui.TextMessageContent:
//		fmt.Print(e.Delta)
//	}
//
// # Decoding
//
// [DecodeEvent] and [DecodeRunAgentInput] are strict: they reject what the
// schema rejects (a missing required member, a wrong type, a null optional, an
// unknown enum value, an unknown member of a closed object, an integer outside
// the safe range) with a [*DecodeError] naming the JSON Pointer of the
// offending value. A [DecodeOptions] with Lenient set decodes as the
// reference client's forgiving receiver does: unknown members and
// unrecognised union members are removed, legacy nulls become absent, and
// each repair is reported as a [DecodeWarning]. Its methods are named after
// the package functions (DecodeOptions{Lenient: true}.DecodeEvent, …), and a
// [StreamDecoder] takes the same options. An unknown event type is an
// [*UnknownEventTypeError] in both modes (errors.Is(err,
// ErrUnknownEventType)), so a consumer can skip it.
//
// Decoding reads JSON as JavaScript's JSON.parse and encoding/json do. A
// member given twice keeps its last value, and only that value is validated:
// {"messageId":null,"messageId":"m"} is accepted, as the schema accepts what
// JSON.parse makes of it. The one exception is a JSON Patch operation with
// two "op" members, which RFC 6902 (appendix A.13) calls invalid. Strings
// become Go strings, so invalid UTF-8 and lone surrogate escapes read as
// U+FFFD (the reference client decodes its input the same way).
//
// # Encoding
//
// Members are written in declaration order: a definition's mixins first, in
// order, then its own members. An event starts with its type and the base
// members every event may carry (timestamp, rawEvent, metadata), then
// subagentRunId, then its own members; a message starts with subagentRunId,
// id and role. That is the order in which @ag-ui/core's schemas build the
// objects a TypeScript peer holds, so our frames are byte-identical to the
// reference encoder's. Absent optionals are omitted, never written as null;
// raw JSON members (json.RawMessage) keep their bytes, with insignificant
// whitespace removed so that every event fits on one SSE data line.
//
// # encoding/json
//
// Every generated type also works with encoding/json, and gives the same
// result as the codec: MarshalJSON has a value receiver, so values, pointers
// and non-addressable values (a map entry, a dereferenced event) all encode
// through AppendJSON; UnmarshalJSON decodes strictly; enums refuse values the
// protocol does not define in both directions. The one difference is
// json.Marshal's own HTML escaping of <, > and & (and U+2028, U+2029), which
// a json.Encoder with SetEscapeHTML(false) leaves out. A union interface
// cannot be a json.Unmarshal target; decode the struct that holds it.
package agui

// The generator is its own module (gen/), so it runs from there: -C makes its
// paths relative to gen/.
//go:generate go -C ../gen run . -schema ../schema/events.json -root ..
