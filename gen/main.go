// Command gen regenerates the Go code derived from schema/events.json.
//
// It is a module of its own, so that the core module does not require what
// only the generator needs (jennifer, a JSON Schema validator). `go
// generate ./...` at the repository root runs it (see agui/doc.go); by hand,
// from the root:
//
//	go -C gen run . -schema ../schema/events.json -root ..
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/agui-go/sdk/gen/internal/generator"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	schema := flag.String("schema", "schema/events.json", "path of the schema")
	root := flag.String("root", ".", "module root the generated paths are relative to")
	flag.Parse()
	m, err := generator.Load(*schema)
	if err != nil {
		return err
	}
	files, err := generator.Generate(m, generator.DefaultConfig())
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(*root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
