// Command agui-exhaustive reports switches over AG-UI sealed interfaces and
// enums that do not handle every variant. See package
// github.com/agui-go/sdk/analysis/exhaustive for the rules.
//
// Usage, from a module that recorded it as a tool (go get -tool
// github.com/agui-go/sdk/cmd/agui-exhaustive@latest once the SDK is
// released; before that, from a clone: see the Running section of package
// exhaustive):
//
//	go tool agui-exhaustive [-fix] [-diff] packages...
//	go vet -vettool=$(go tool -n agui-exhaustive) packages...
//	go fix -fixtool=$(go tool -n agui-exhaustive) packages...
//
// -fix (or go fix) applies the suggested fixes, which insert the missing
// cases. A switch that handles only some variants on purpose says so with
// //agui:nonexhaustive REASON on the line above it.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/agui-go/sdk/analysis/exhaustive"
)

// main has no run() error to wrap: singlechecker.Main parses the flags,
// prints the diagnostics and chooses the exit code itself.
func main() { singlechecker.Main(exhaustive.Analyzer) }
