package agui

// DefaultMaxFrame is the largest encoded event, in bytes, that a reader of
// either binding accepts unless told otherwise, and the largest the server
// sends: 10 MiB, the reference client's limit.
//
// The SSE and protobuf bindings share one limit because it bounds one thing,
// the encoding of a single event, whichever framing carries it: the
// reference client caps an SSE frame's text and a protobuf message at the
// same 10 MiB, client.WithMaxFrame sets one limit for both bindings, and the
// server holds every event it emits to it, so that nothing it sends is
// refused by a reader with the default limit.
const DefaultMaxFrame = 10 << 20
