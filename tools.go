//go:build tools

// Package tools pins the tools the Makefile runs, so `go run` uses the
// versions in go.mod rather than whatever is installed.
package tools

import (
	_ "golang.org/x/perf/cmd/benchstat"
	_ "golang.org/x/tools/go/analysis/singlechecker"
)
