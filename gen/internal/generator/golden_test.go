package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestScenarios generates each schema in testdata/scenarios and compares the
// output with its golden txtar archive (rewrite with -update). The output is
// also compiled, with the hand-written runtime beside it, so a golden file
// can never pin code that does not build.
func TestScenarios(t *testing.T) {
	t.Parallel()
	schemas, err := filepath.Glob("testdata/scenarios/*.json")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range schemas {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Module: "example.com/" + name, AguiDir: "agui", VerifyDir: "verify", Tool: "agui-gen", SchemaName: name + ".json"}
			files, err := Generate(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var ar txtar.Archive
			ar.Comment = []byte("Generated from " + name + ".json; rewrite with go test ./internal/generator -run TestScenarios -update\n")
			names := make([]string, 0, len(files))
			for n := range files {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				ar.Files = append(ar.Files, txtar.File{Name: n, Data: files[n]})
			}
			got := txtar.Format(&ar)
			golden := strings.TrimSuffix(path, ".json") + ".txtar"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run with -update and review the diff)", golden)
			}
			if testing.Short() {
				return
			}
			dir := t.TempDir()
			writeModule(t, dir, cfg.Module, files)
			goCmd(t, dir, "vet", "./...")
		})
	}
}
