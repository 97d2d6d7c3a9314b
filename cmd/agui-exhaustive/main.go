// Command agui-exhaustive reports switches over AG-UI sealed interfaces and
// enums that do not handle every variant. See package
// github.com/agui-go/sdk/analysis/exhaustive for the rules.
//
// Usage:
//
//	agui-exhaustive [flags] packages...
//	go vet -vettool=$(which agui-exhaustive) packages...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/agui-go/sdk/analysis/exhaustive"
)

// main has no run() error to wrap: singlechecker.Main parses the flags,
// prints the diagnostics and chooses the exit code itself.
func main() { singlechecker.Main(exhaustive.Analyzer) }
