// Package bench measures agui-go beside its peers: the community Go SDK
// (github.com/ag-ui-protocol/ag-ui/sdks/community/go, pinned in go.mod) and,
// through a Node script, the TypeScript reference 1.0.0.
//
// It is a module of its own so that the SDK's module never depends on a
// peer: only this module's go.mod names the community SDK, and it replaces
// the SDK with the checkout it sits in, so the figures are for this tree.
//
// Everything here is in _test.go files; BENCHMARKS.md says how to run it and
// how to read the figures.
package bench
