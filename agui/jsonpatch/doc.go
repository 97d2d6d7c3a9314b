// Package jsonpatch applies and computes RFC 6902 JSON Patches
// ([agui.JSONPatch]), the form of STATE_DELTA and ACTIVITY_DELTA.
//
// [Apply] is what a consumer needs to follow a run's state: it is
// all-or-nothing (a patch that fails anywhere leaves nothing applied) and
// names the failing operation in an [*Error]. It accepts and rejects what the
// reference client's applier does (fast-json-patch applyPatch with
// validation, as @ag-ui/client 1.0.0 calls it), so that a Go consumer and a
// browser end up with the same state from the same stream:
//
//   - remove, replace and test need their target to exist; add needs its
//     parent, and an array index no greater than the length ("-" appends);
//   - move and copy need their from location; a move into its own child
//     fails;
//   - test compares deeply, member order aside, numbers as doubles;
//   - a path through "__proto__" or "constructor/prototype" is refused;
//   - an operation at the root ("") replaces the document, and a remove of
//     the root leaves null.
//
// It also follows the reference where the reference departs from RFC 6902:
// a move or copy to an array index past the end appends (the RFC says fail),
// a move onto itself still moves the member to the end of its object, and
// objects are written in the order JavaScript keeps their members (keys that
// are array indices first, in numeric order; then the others as inserted).
// internal/interop holds this against the reference itself
// (TestReducerParity: random state deltas through @ag-ui/client's reducer,
// compared byte for byte).
//
// Not followed are the reference's accidents of JavaScript, where it reads
// a document in a way no JSON rule gives: an empty array index or one with a
// leading zero ("/list/", "/list/01"), which it reads as a number for add,
// move, copy and test but not for remove and replace, is refused here as RFC
// 6901 says; members inherited from Object.prototype ("toString",
// "constructor") do not exist here unless the document has them; a change inside
// a string, number or boolean, which the reference silently ignores (for a
// falsy document it does not even validate the patch), fails here; and a move
// from the root into the document, which leaves the reference with a
// document containing itself, fails as a move into its own child.
//
// [Diff] is the other direction, what a producer needs to send deltas: a
// small, always-correct diff that never writes move or copy. [DiffValues]
// takes documents already decoded by encoding/json, and [Size] says how long
// a patch is on the wire, to choose between a delta and a snapshot.
package jsonpatch
