package generator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocolBumpBreaksConsumers rehearses the reason the exhaustive
// analyzer exists. A consumer switches over every event of the current
// schema; with the current schema, go vet with the analyzer is clean. After
// a protocol bump that adds an event, the same consumer is reported, and the
// diagnostic names the new event.
func TestProtocolBumpBreaksConsumers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the analyzer and two modules")
	}
	tool := filepath.Join(t.TempDir(), "agui-exhaustive")
	build := exec.Command("go", "build", "-o", tool, "../../cmd/agui-exhaustive")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the analyzer: %v\n%s", err, out)
	}

	current, err := Load(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	// The consumer lists every event type of the current schema.
	var cases strings.Builder
	for _, s := range current.Events {
		fmt.Fprintf(&cases, "\tcase *agui.%s:\n\t\treturn %q\n", s.GoName, s.Event.Wire)
	}
	consumer := "package consumer\n\nimport \"example.com/app/agui\"\n\n" +
		"// Describe handles every event the SDK knows today.\n" +
		"func Describe(ev agui.Event) string {\n\tswitch ev.(type) {\n" + cases.String() + "\t}\n\treturn \"\"\n}\n"

	vet := func(m *Model) (string, error) {
		cfg := Config{Module: "example.com/app", AguiDir: "agui", VerifyDir: "", Tool: "agui-gen"}
		files, err := Generate(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		writeModule(t, dir, cfg.Module, files)
		if err := os.MkdirAll(filepath.Join(dir, "consumer"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "consumer", "consumer.go"), []byte(consumer), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "vet", "-vettool="+tool, "./consumer")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	if out, err := vet(current); err != nil {
		t.Fatalf("the consumer should be exhaustive today: %v\n%s", err, out)
	}
	bumped, err := LoadBytes("events.json", bumpSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := vet(bumped)
	if err == nil {
		t.Fatalf("after the bump the consumer's switch passed vet:\n%s", out)
	}
	want := "consumer/consumer.go:7:2: missing cases in switch of type agui.Event: *agui.Ping"
	if !strings.Contains(out, want) {
		t.Fatalf("vet output does not name the new event\nwant %s\ngot\n%s", want, out)
	}
}
