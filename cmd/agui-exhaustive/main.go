// Command agui-exhaustive reports switches over AG-UI sealed interfaces and
// enums that do not handle every variant. See package
// github.com/agui-go/sdk/analysis/exhaustive for the rules.
//
// Usage, from a module that added it with
// go get -tool github.com/agui-go/sdk/cmd/agui-exhaustive@latest:
//
//	go tool agui-exhaustive [-fix] [-diff] packages...
//	go vet -vettool=$(go tool -n agui-exhaustive) packages...
//	go fix -fixtool=$(go tool -n agui-exhaustive) packages...
//
// -fix (or go fix) applies the suggested fixes, which insert the missing
// cases.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/agui-go/sdk/analysis/exhaustive"
)

// main has no run() error to wrap: singlechecker.Main parses the flags,
// prints the diagnostics and chooses the exit code itself.
func main() { singlechecker.Main(exhaustive.Analyzer) }
