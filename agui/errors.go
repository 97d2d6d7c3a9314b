package agui

import (
	"errors"
	"strconv"
)

// This file holds the error types of the codec (its warning type,
// DecodeWarning, is in warning.go). They are
// hand-written (not generated) and import only the standard library, so the
// protocol-bump rehearsal can copy them next to freshly generated code.
//
// Callers are expected to use errors.As / errors.Is on these types and never
// to match message text; the messages are for humans and logs.

// DecodeError reports where and why a document was rejected.
//
// Path and Offset locate the problem twice on purpose: the JSON Pointer is
// stable across re-formatting and is what a protocol author thinks in, while
// the byte offset finds the exact spot of a syntax error in a log line.
type DecodeError struct {
	Path   string // JSON Pointer of the offending value ("" = the document itself)
	Offset int    // byte offset into the input
	Reason string // lower-case, no trailing period
}

// Error formats the error as
// `agui: decode error at /messages/0/role (offset 57): unknown enum value "narrator"`.
func (e *DecodeError) Error() string {
	b := make([]byte, 0, len("agui: decode error at  (offset ): ")+len(e.Path)+len(e.Reason)+24)
	b = append(b, "agui: decode error at "...)
	if e.Path == "" {
		b = append(b, "the document root"...)
	} else {
		b = append(b, e.Path...)
	}
	b = append(b, " (offset "...)
	b = strconv.AppendInt(b, int64(e.Offset), 10)
	b = append(b, "): "...)
	b = append(b, e.Reason...)
	return string(b)
}

// ErrUnknownEventType is matched (via errors.Is) by every
// *UnknownEventTypeError, so callers that only need to know "a newer peer sent
// something we cannot represent" do not have to unpack the type.
var ErrUnknownEventType = errors.New("agui: unknown event type")

// UnknownEventTypeError reports an event whose "type" this version of the SDK
// does not know. It is separate from DecodeError because it is the one failure
// a forward-compatible consumer may want to skip rather than abort on.
type UnknownEventTypeError struct {
	Type string // the "type" value as sent
}

// Error formats the error as `agui: unknown event type "FUTURE_EVENT"`.
func (e *UnknownEventTypeError) Error() string {
	return "agui: unknown event type " + strconv.Quote(e.Type)
}

// Is reports whether target is ErrUnknownEventType.
func (e *UnknownEventTypeError) Is(target error) bool {
	return target == ErrUnknownEventType
}

// EncodeError reports a value that cannot be written as valid AG-UI JSON,
// typically a json.RawMessage field that holds invalid JSON or the wrong kind
// of value. The encoder never emits a partial or invalid document instead.
type EncodeError struct {
	Type  string // Go type name of the struct being encoded, e.g. "ToolCall"
	Field string // Go field name, e.g. "Metadata"; may be empty
	Err   error  // the underlying problem
}

// Error formats the error as `agui: encode <Type>.<Field>: <Err>`.
func (e *EncodeError) Error() string {
	s := "agui: encode " + e.Type
	if e.Field != "" {
		s += "." + e.Field
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *EncodeError) Unwrap() error { return e.Err }

// encodeError wraps err with the location at which generated code met it.
// Errors that already are *EncodeError (from a nested value) are passed
// through unchanged so the innermost, most precise location wins.
func encodeError(typ, field string, err error) error {
	var ee *EncodeError
	if errors.As(err, &ee) {
		return err
	}
	return &EncodeError{Type: typ, Field: field, Err: err}
}

// syntaxError is the plain error that appendRaw and friends return for a
// malformed user-supplied json.RawMessage. Generated code wraps it with
// encodeError; the decoder converts the same scanner result into a
// *DecodeError instead.
type syntaxError struct {
	offset int    // byte offset of the offending byte in the raw value
	msg    string // e.g. "unexpected '}'"
}

func (e *syntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.offset) + ": " + e.msg
}
