package generator

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule lays generated files, plus the hand-written files of the agui
// package, into a fresh module at dir, so the output can be compiled and run
// as a user would.
func writeModule(t *testing.T, dir, module string, files map[string][]byte) {
	t.Helper()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The hand-written runtime's one dependency, protowire, comes from the
	// module cache at the repository's version (the go command runs offline).
	write("go.mod", []byte("module "+module+"\n\ngo 1.26\n\nrequire "+protobufRequire(t)+"\n"))
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	for name, src := range files {
		write(name, src)
	}
	hand, err := filepath.Glob("../../agui/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hand {
		base := filepath.Base(p)
		if strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, "_gen.go") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("agui", base), data)
	}
}

// protobufRequire returns the repository's requirement of
// google.golang.org/protobuf, "path version".
func protobufRequire(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "google.golang.org/protobuf" {
			return f[0] + " " + f[1]
		}
	}
	t.Fatal("go.mod does not require google.golang.org/protobuf")
	return ""
}

// goCmd runs the go command in dir, offline: the module has no dependencies.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// bumpSchema returns a copy of the real schema with one more event type
// (PING_EVENT, carrying a required note) and one more optional member on an
// existing event (TEXT_MESSAGE_CONTENT.priority): a protocol bump in small.
func bumpSchema(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["$defs"].(map[string]any)
	et := defs["EventType"].(map[string]any)
	et["enum"] = append(et["enum"].([]any), "PING")
	ev := defs["Event"].(map[string]any)
	ev["oneOf"] = append(ev["oneOf"].([]any), map[string]any{"$ref": "#/$defs/PingEvent"})
	defs["PingEvent"] = map[string]any{
		"$anchor":     "PingEvent",
		"description": "Checks that the peer is alive.",
		"type":        "object",
		"allOf":       []any{map[string]any{"$ref": "#/$defs/BaseEvent"}, map[string]any{"$ref": "#/$defs/Attributable"}},
		"properties": map[string]any{
			"type": map[string]any{"const": "PING"},
			"note": map[string]any{"type": "string", "x-agui-proto-field": 2},
		},
		"required":              []any{"type", "note"},
		"unevaluatedProperties": false,
		"x-agui-lifecycle":      map[string]any{"action": "none"},
		"x-agui-attribution":    "tag",
		"x-agui-proto":          map[string]any{"enum": 31, "oneof": 32, "subagentRunId": 3},
	}
	tmc := defs["TextMessageContentEvent"].(map[string]any)
	tmc["properties"].(map[string]any)["priority"] = map[string]any{"type": "integer", "minimum": 0, "maximum": 10, "x-agui-proto-field": 5}
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProtocolBump rehearses regenerating after a protocol bump: the bumped
// schema generates into a throw-away module that compiles, and the new event
// and the new member round-trip.
func TestProtocolBump(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a module")
	}
	m, err := LoadBytes("events.json", bumpSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Module: "example.com/bumped", AguiDir: "agui", VerifyDir: "verify", Tool: "agui-gen"}
	files, err := Generate(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeModule(t, dir, cfg.Module, files)
	main := `package main

import (
	"fmt"
	"os"

	"example.com/bumped/agui"
	_ "example.com/bumped/verify"
)

func main() {
	for _, ev := range []agui.Event{
		agui.NewPing("are you there?"),
		&agui.TextMessageContent{MessageID: "m1", Delta: "hi", Priority: new(int64(7))},
	} {
		data, err := ev.AppendJSON(nil)
		if err != nil {
			fmt.Println("encode:", err)
			os.Exit(1)
		}
		back, err := agui.DecodeEvent(data)
		if err != nil {
			fmt.Println("decode:", err)
			os.Exit(1)
		}
		again, _ := back.AppendJSON(nil)
		pb, err := agui.AppendEventProto(nil, ev)
		if err != nil {
			fmt.Println("encode protobuf:", err)
			os.Exit(1)
		}
		pback, err := agui.DecodeEventProto(pb)
		if err != nil {
			fmt.Println("decode protobuf:", err)
			os.Exit(1)
		}
		viaProto, _ := pback.AppendJSON(nil)
		fmt.Printf("%s %s %v %v\n", back.Type(), data, string(again) == string(data), string(viaProto) == string(data))
	}
	fmt.Println(len(agui.EventTypes()))
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	got := goCmd(t, dir, "run", ".")
	want := `PING {"type":"PING","note":"are you there?"} true true
TEXT_MESSAGE_CONTENT {"type":"TEXT_MESSAGE_CONTENT","delta":"hi","messageId":"m1","priority":7} true true
32
`
	// (The bumped copy went through encoding/json maps, which sort members,
	// so delta now precedes messageId: member order follows the schema.)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
