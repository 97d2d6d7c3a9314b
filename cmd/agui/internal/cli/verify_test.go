package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/agui-go/sdk/agui/protoframe"
)

// checkOneObject runs `agui verify --json [args]` on stdin and checks the
// promise of --json: standard output is exactly one JSON object with every
// key, its offsets lie inside the input, and its exit status agrees with ok.
func checkOneObject(t *testing.T, stdin []byte, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(append([]string{"verify", "--json"}, args...), bytes.NewReader(stdin), &stdout, &stderr)
	out := bytes.Clone(stdout.Bytes())
	dec := json.NewDecoder(&stdout)
	var got map[string]json.RawMessage
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%q", err, stdout.String())
	}
	if dec.More() {
		t.Fatalf("more than one value on stdout: %q", out)
	}
	for _, key := range []string{"ok", "index", "offset", "rule", "event", "id", "message", "warnings"} {
		if _, ok := got[key]; !ok {
			t.Errorf("no %q in %s", key, out)
		}
	}
	var v verdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Warnings == nil {
		t.Errorf("warnings is null, not an array")
	}
	if v.Offset < -1 || v.Offset > len(stdin) {
		t.Errorf("offset %d outside the %d bytes of input", v.Offset, len(stdin))
	}
	for _, w := range v.Warnings {
		if w.Offset < -1 || w.Offset >= len(stdin) {
			t.Errorf("warning offset %d outside the %d bytes of input", w.Offset, len(stdin))
		}
	}
	if v.OK != (code == ExitOK) || (!v.OK && v.Message == "") {
		t.Errorf("exit %d for ok=%v message %q", code, v.OK, v.Message)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr not empty: %q", stderr.String())
	}
}

// FuzzVerifyJSON holds --json to its promise for any input, in both
// profiles. The seeds are every input of the golden scenarios.
func FuzzVerifyJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "verify", "*.txtar"))
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, in := range ar.Files {
			switch in.Name {
			case "stdout", "stderr", "exit":
			default:
				f.Add(in.Data, false)
				f.Add(in.Data, true)
			}
		}
	}
	f.Add([]byte("\xef\xbb\xbf data: {}\n\n"), false)
	f.Add([]byte("[1,2"), true)
	proto := protoframe.AppendMessage(nil, []byte{0xc2, 0x02, 0x02, 0x08, 0x01}) // an envelope field from a later protocol
	f.Add(proto, false)
	f.Add(proto[:len(proto)-2], true)
	f.Fuzz(func(t *testing.T, stdin []byte, server bool) {
		profile := "client"
		if server {
			profile = "server"
		}
		checkOneObject(t, stdin, "--profile", profile)
	})
}

// TestVerifyJSONOutsideInput covers the outcomes that do not depend on the
// input: a file that cannot be read, and command lines that are wrong.
func TestVerifyJSONOutsideInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	for _, args := range [][]string{
		{missing},
		{"--profile", "browser"},
		{"--unknown"},
		{"a", "b"},
		{"--profile"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { checkOneObject(t, nil, args...) })
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the missing file exists")
	}
}

func TestWantsJSON(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--json"}, true},
		{[]string{"-json", "f"}, true},
		{[]string{"f", "--json=true"}, true},
		{[]string{"--json=false"}, false},
		{[]string{"--json", "--json=false"}, false},
		{[]string{"--json=false", "--json"}, true},
		{[]string{"--", "--json"}, false},
		{[]string{"json"}, false},
		{[]string{"--jsonx"}, false},
		{nil, false},
	} {
		if got := wantsJSON(tc.args); got != tc.want {
			t.Errorf("wantsJSON(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// The --json offsets name where the rejected event, and each event a
// warning is about, starts in the input, in every text format.
func TestVerifyJSONOffsets(t *testing.T) {
	const (
		started  = `{"type":"RUN_STARTED","threadId":"t","runId":"r","extra":1}` // warned: an unknown member
		orphan   = `{"type":"TEXT_MESSAGE_END","messageId":"m"}`                 // rejected: no such message
		finished = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	)
	for _, tt := range []struct {
		name   string
		input  string
		prefix string // how an event starts in the format, before its JSON
	}{
		{"sse", "data: " + started + "\n\n: a comment\ndata: " + orphan + "\n\ndata: " + finished + "\n\n", "data: "},
		{"sse-crlf", "data: " + started + "\r\n\r\ndata: " + orphan + "\r\n\r\n", "data: "},
		{"json-lines", started + "\n\n  " + orphan + "\n" + finished + "\n", ""},
		{"json-array", "[ " + started + ",\n  " + orphan + ", " + finished + "]", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main([]string{"verify", "--json"}, strings.NewReader(tt.input), &stdout, &stderr)
			var v verdict
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil || code != ExitRejected {
				t.Fatalf("exit %d, %v: %s", code, err, stdout.Bytes())
			}
			if want := strings.Index(tt.input, tt.prefix+orphan); v.Index != 1 || v.Offset != want {
				t.Errorf("rejected event %d at offset %d, want event 1 at %d", v.Index, v.Offset, want)
			}
			want := strings.Index(tt.input, tt.prefix+started)
			found := false
			for _, w := range v.Warnings {
				if w.Index == 0 && strings.Contains(w.Message, "/extra") {
					found = true
					if w.Offset != want {
						t.Errorf("warning about event 0 at offset %d, want %d", w.Offset, want)
					}
				}
			}
			if !found {
				t.Errorf("no warning about the unknown member of event 0: %+v", v.Warnings)
			}
		})
	}
}
