package generator

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// consumerSource is a consumer package, importing example.com/app/agui,
// whose switch lists every event type of m.
func consumerSource(m *Model) string {
	var cases strings.Builder
	for _, s := range m.Events {
		fmt.Fprintf(&cases, "\tcase *agui.%s:\n\t\treturn %q\n", s.GoName, s.Event.Wire)
	}
	return "package consumer\n\nimport \"example.com/app/agui\"\n\n" +
		"// Describe handles every event the SDK knows today.\n" +
		"func Describe(ev agui.Event) string {\n\tswitch ev.(type) {\n" + cases.String() + "\t}\n\treturn \"\"\n}\n"
}

// TestProtocolBumpBreaksConsumers rehearses the reason the exhaustive
// analyzer exists. A consumer switches over every event of the current
// schema; with the current schema, go vet with the analyzer is clean. After
// a protocol bump that adds an event, the same consumer is reported, and the
// diagnostic names the new event. (The bumped module, consumer included, is
// the one TestProtocolBump runs: see bumpedModule.)
func TestProtocolBumpBreaksConsumers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the analyzer and two modules")
	}
	t.Parallel()
	tool := filepath.Join(t.TempDir(), "agui-exhaustive")
	build := exec.Command("go", "build", "-o", tool, "./cmd/agui-exhaustive")
	build.Dir = repoRoot // the analyzer is the core module's
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the analyzer: %v\n%s", err, out)
	}
	vet := func(dir string) (string, error) {
		return goCmdErr(dir, "vet", "-vettool="+tool, "./consumer")
	}

	t.Run("current", func(t *testing.T) {
		t.Parallel()
		current, err := Load(schemaPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Module: "example.com/app", AguiDir: "agui", VerifyDir: "", Tool: "agui-gen"}
		files, err := Generate(current, cfg)
		if err != nil {
			t.Fatal(err)
		}
		files["consumer/consumer.go"] = []byte(consumerSource(current))
		dir := t.TempDir()
		writeModule(t, dir, cfg.Module, files)
		if out, err := vet(dir); err != nil {
			t.Fatalf("the consumer should be exhaustive today: %v\n%s", err, out)
		}
	})
	t.Run("bumped", func(t *testing.T) {
		t.Parallel()
		out, err := vet(bumpedModule(t))
		if err == nil {
			t.Fatalf("after the bump the consumer's switch passed vet:\n%s", out)
		}
		want := "consumer/consumer.go:7:2: missing cases in switch of type agui.Event: *agui.Ping"
		if !strings.Contains(out, want) {
			t.Fatalf("vet output does not name the new event\nwant %s\ngot\n%s", want, out)
		}
	})
}
