// Package agui holds the AG-UI 1.0 protocol types: the 31 events behind the
// sealed [Event] interface, [RunAgentInput] and everything nested in it, and
// their JSON codec.
//
// Almost everything here is generated from schema/events.json by
// internal/generator (files named *_gen.go). The codec uses no reflection:
// AppendJSON appends an event's compact JSON to a caller's buffer, and the
// decoders read a document in one pass.
//
// # Decoding
//
// [DecodeEvent] and [DecodeRunAgentInput] are strict: they reject what the
// schema rejects (a missing required member, a wrong type, a null optional, an
// unknown enum value, an unknown member of a closed object, an integer outside
// the safe range) with a [*DecodeError] naming the JSON Pointer of the
// offending value. [DecodeEventLenient] behaves like the reference client's
// forgiving receiver: unknown members and unrecognised union members are
// removed, legacy nulls become absent, and each repair is reported as a
// [Warning]. An unknown event type is an [*UnknownEventTypeError] in both
// modes (errors.Is(err, ErrUnknownEventType)), so a consumer can skip it.
//
// Decoding reads JSON as JavaScript's JSON.parse and encoding/json do: a
// member given twice keeps its last value, and strings become Go strings, so
// invalid UTF-8 and lone surrogate escapes read as U+FFFD (the reference
// client decodes its input the same way).
//
// # Encoding
//
// Members are written in a fixed order: the discriminator ("type", "role" or
// "op") first, then required members the definition inherits (a message's
// id), then its own members in schema order, then optional inherited ones
// (subagentRunId), and last the base members every event may carry
// (timestamp, rawEvent, metadata). Absent
// optionals are omitted, never written as null; raw JSON members
// (json.RawMessage) keep their bytes, with insignificant whitespace removed so
// that every event fits on one SSE data line.
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

//go:generate go run ../gen -schema ../schema/events.json -root ..
