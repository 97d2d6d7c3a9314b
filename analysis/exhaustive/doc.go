// Package exhaustive defines an Analyzer that reports switches over AG-UI
// sealed interfaces and enums that do not list every variant or member.
//
// # Analyzer exhaustive
//
// exhaustive: check that switches over sealed interfaces and enums are exhaustive
//
// Go has no closed sum types, so the SDK marks its closed sets with
// directive comments and this analyzer enforces them: when the protocol gains
// an event, every consumer switch over agui.Event or agui.EventType that
// does not handle it stops passing vet.
//
// Two kinds of declaration are recognized, by a directive line in the doc
// comment of the type declaration:
//
//	// Event is an AG-UI event.
//	//
//	//agui:sealed
//	type Event interface { isEvent() }
//
//	//agui:enum
//	type EventType string
//
// The variants of a sealed interface are the non-interface, non-generic named
// types declared at package level in the interface's own package that
// implement it. A type whose methods have pointer receivers is the variant *T;
// a type whose value method set already implements the interface is the
// variant T. The members of an enum are the package-level constants of exactly
// that type declared in the enum's package. Types and constants declared in
// _test.go files are left out unless the directive itself is in a _test.go
// file, so a test-only fake never widens the set seen by other code. The
// declaring package exports the set as an analysis fact, which is how
// switches in other packages and modules see it; facts are exported from
// generated files too.
//
// The analyzer reports:
//
//   - a type switch (switch e.(type) or switch x := e.(type)) whose subject's
//     static type is a sealed interface and whose cases do not name every
//     variant. A case listing several types counts each of them; case nil
//     counts nothing; a case naming an interface type counts nothing, even if
//     some variants implement it. A value variant T is counted by a case
//     naming T or *T.
//   - an expression switch whose tag has an enum type (a variable, or a call
//     such as e.Type()) and whose cases do not cover every member. A case
//     covers a member when it names the member constant, or when it is any
//     constant expression with the member's value (so a literal
//     "TEXT_MESSAGE_START" counts, and members sharing a value are covered
//     together).
//   - a //agui:sealed directive on anything but a non-generic interface type,
//     and a //agui:enum directive on anything but a defined type with a basic
//     underlying type (in hand-written files; see below).
//
// The diagnostic is positioned at the switch keyword and reads
//
//	missing cases in switch of type events.Event: *events.TextMessageEnd, *events.RunError
//
// Names are qualified by package name, not import path, and listed in
// declaration order: the order of the declarations within the declaring
// package, files taken in the order the build lists them (by file name). For
// the generated agui package that is the protocol's schema (wire) order, so
// the list reads like the specification and related events stay together
// (TEXT_MESSAGE_START before TEXT_MESSAGE_END), which alphabetical order would
// scatter. A list longer than six names shows the first five and how many
// more ("... and 24 more"): a switch written before a protocol bump misses one
// or two cases and sees them all, while a new switch over every event would
// otherwise get a paragraph; the suggested fix holds the full list.
//
// # The suggested fix
//
// Each diagnostic carries a suggested fix that inserts a case clause for
// every missing variant or member, before the default clause if there is
// one, else at the end of the switch, named as the file imports the package
// (an import is added if the file has none):
//
//	case *agui.TextMessageEnd:
//		panic("TODO: handle *agui.TextMessageEnd")
//
// The body panics on purpose. An empty case would absorb the variant
// silently, which is the failure this analyzer exists to prevent, and in a
// switch that ends its function it would not even compile (a missing
// return); a panic compiles anywhere and fails loudly until someone writes
// the handling. Members sharing a value get one case; an unexported member
// of another package is written as its value; an unexported variant of
// another package cannot be named there and gets no case.
//
// # The default clause
//
// A default clause does not make a switch exhaustive, because it would
// silently absorb events added in a later protocol version. The only
// exception is a default clause whose body is exactly one call of the builtin
// panic: such a switch already fails loudly on an unhandled variant.
//
//	switch e := ev.(type) {
//	case *agui.RunStarted:
//	default:
//		panic(fmt.Sprintf("unexpected event %T", e)) // accepted
//	}
//
// # Opting out
//
// A switch that deliberately handles only some variants is marked with the
// directive //agui:nonexhaustive followed by the reason, either on the line
// directly above the switch statement (above its label, if it has one) or
// at the end of the line holding the switch keyword:
//
//	//agui:nonexhaustive only text messages matter to this view
//	switch ev.(type) {
//
//	switch ev.Type() { //agui:nonexhaustive the log line needs the end of the run only
//
// Anything after the directive name and a space is the reason, free text;
// the analyzer does not read it, a reviewer does, so give one: a later
// reader has to tell a switch that ignores the new event on purpose from
// one that was forgotten. The directive is the only way to keep a partial
// switch quiet: a default clause does not (see above).
//
// # Generated files
//
// Nothing in a generated file (one carrying the standard "Code generated ...
// DO NOT EDIT." header, see [go/ast.IsGenerated]) is reported, so a
// generator's own partial switches, such as a decoder's switch on the
// discriminator, must be covered by that generator's tests. Generated
// declarations still count: the facts for agui.Event come from a generated
// file.
//
// The analyzer has no flags and keeps no state between packages other than
// its facts.
//
// # Running
//
// The command github.com/agui-go/sdk/cmd/agui-exhaustive runs this analyzer
// alone. Inside this repository:
//
//	go run ./cmd/agui-exhaustive ./...
//
// From your own module (Go 1.24 or later), record it as a tool of the module
// once, which pins its version in go.mod:
//
//	go get -tool github.com/agui-go/sdk/cmd/agui-exhaustive@latest
//
// That needs a published version. Until there is one, a module that uses
// the SDK already depends on a clone of it through a replace directive, and
// the tool comes from the same clone (here ../agui-go):
//
//	go mod edit -require=github.com/agui-go/sdk@v0.0.0 -replace=github.com/agui-go/sdk=../agui-go
//	go mod edit -tool=github.com/agui-go/sdk/cmd/agui-exhaustive
//	go mod tidy
//
// or build the command in the clone and run the binary from anywhere:
//
//	go -C ../agui-go build -o "$(go env GOPATH)/bin/agui-exhaustive" ./cmd/agui-exhaustive
//	agui-exhaustive ./...
//
// Recorded as a tool, run it directly, as go vet's tool, or as go fix's tool
// to apply the suggested fixes (go tool -n prints the path of the built
// tool; with the binary, give its path instead):
//
//	go tool agui-exhaustive ./...
//	go vet -vettool=$(go tool -n agui-exhaustive) ./...
//	go fix -fixtool=$(go tool -n agui-exhaustive) -diff ./...   # show the fixes
//	go fix -fixtool=$(go tool -n agui-exhaustive) ./...         # apply them
//
// (go tool agui-exhaustive -fix ./... applies them too.) An editor shows the
// fix as a quick fix when its analysis driver runs this analyzer; gopls runs
// only the analyzers compiled into it, so with gopls, run the commands above.
package exhaustive
