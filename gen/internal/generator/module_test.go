package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// writeModule lays generated files, plus the hand-written files of the agui
// package, into a fresh module at dir, so the output can be compiled and run
// as a user would.
func writeModule(t *testing.T, dir, module string, files map[string][]byte) {
	t.Helper()
	if err := layOutModule(dir, module, files); err != nil {
		t.Fatal(err)
	}
}

// layOutModule is writeModule, returning its error.
func layOutModule(dir, module string, files map[string][]byte) error {
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	// The hand-written runtime's one dependency, protowire, comes from the
	// module cache at the repository's version (the go command runs offline).
	req, err := protobufRequire()
	if err != nil {
		return err
	}
	if err := write("go.mod", []byte("module "+module+"\n\ngo 1.26\n\nrequire "+req+"\n")); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	if err != nil {
		return err
	}
	if err := write("go.sum", sum); err != nil {
		return err
	}
	for name, src := range files {
		if err := write(name, src); err != nil {
			return err
		}
	}
	hand, err := filepath.Glob(filepath.Join(repoRoot, "agui", "*.go"))
	if err != nil {
		return err
	}
	for _, p := range hand {
		base := filepath.Base(p)
		if strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, "_gen.go") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := write(filepath.Join("agui", base), data); err != nil {
			return err
		}
	}
	return nil
}

// protobufRequire returns the repository's requirement of
// google.golang.org/protobuf, "path version".
func protobufRequire() (string, error) {
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "google.golang.org/protobuf" {
			return f[0] + " " + f[1], nil
		}
	}
	return "", fmt.Errorf("go.mod does not require google.golang.org/protobuf")
}

// goCmd runs the go command in dir, offline (the module's one dependency
// is in the module cache), and fails t if it fails.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := goCmdErr(dir, args...)
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// goCmdErr runs the go command in dir, offline, and returns its combined
// output. It shares the caller's build cache (GOCACHE is inherited): the
// standard library and protowire come compiled from it.
func goCmdErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// bumpSchema returns a copy of the real schema with one more event type
// (PING_EVENT, carrying a required note) and one more optional member on an
// existing event (TEXT_MESSAGE_CONTENT.priority): a protocol bump in small.
func bumpSchema() ([]byte, error) {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
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
	return json.MarshalIndent(s, "", "  ")
}

// bumped is the module the two protocol-bump tests share: generated once
// from bumpSchema, laid out once and compiled once, so that the test that
// runs it and the test that vets a consumer in it compile its packages (the
// costly part) a single time between them, in one directory (the build
// cache keys a package by its directory).
var bumped struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the shared scratch module after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if bumped.dir != "" {
		os.RemoveAll(bumped.dir)
	}
	os.Exit(code)
}

// bumpedMain round-trips the bump's new event and new member through JSON
// and protobuf, and counts the event types.
const bumpedMain = `package main

import (
	"fmt"
	"os"

	"example.com/app/agui"
	_ "example.com/app/verify"
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

// bumpedModule returns the directory of the bumped module, example.com/app:
// the packages generated from bumpSchema (agui and verify), a main package
// (bumpedMain) and consumer/consumer.go, the consumer of
// TestProtocolBumpBreaksConsumers (written against the current schema). All
// of it is built once (go build ./...) before the first caller gets it.
func bumpedModule(t *testing.T) string {
	t.Helper()
	bumped.once.Do(func() {
		bumped.dir, bumped.err = layOutBumped()
	})
	if bumped.err != nil {
		t.Fatal(bumped.err)
	}
	return bumped.dir
}

func layOutBumped() (string, error) {
	schema, err := bumpSchema()
	if err != nil {
		return "", err
	}
	m, err := LoadBytes("events.json", schema)
	if err != nil {
		return "", err
	}
	current, err := Load(schemaPath)
	if err != nil {
		return "", err
	}
	cfg := Config{Module: "example.com/app", AguiDir: "agui", VerifyDir: "verify", Tool: "agui-gen"}
	files, err := Generate(m, cfg)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "agui-generator-bumped-")
	if err != nil {
		return "", err
	}
	files["main.go"] = []byte(bumpedMain)
	files["consumer/consumer.go"] = []byte(consumerSource(current))
	if err := layOutModule(dir, cfg.Module, files); err != nil {
		return dir, err
	}
	if out, err := goCmdErr(dir, "build", "./..."); err != nil {
		return dir, fmt.Errorf("go build ./... in the bumped module: %v\n%s", err, out)
	}
	return dir, nil
}

// TestProtocolBump rehearses regenerating after a protocol bump: the bumped
// schema generates into a throw-away module that compiles, and the new event
// and the new member round-trip.
func TestProtocolBump(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a module")
	}
	t.Parallel()
	got := goCmd(t, bumpedModule(t), "run", ".")
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
