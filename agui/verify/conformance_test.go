package verify_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/spectest"
)

type conformanceStream struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Stream      []json.RawMessage `json:"stream"`
	Expect      struct {
		Outcome       string `json:"outcome"`
		ErrorContains string `json:"errorContains"`
	} `json:"expect"`
}

func loadConformance(t testing.TB) []conformanceStream {
	t.Helper()
	dir := spectest.Require(t)
	files, err := filepath.Glob(filepath.Join(dir, "conformance", "streams", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance streams in %s: %v", dir, err)
	}
	var out []conformanceStream
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s conformanceStream
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, s)
	}
	return out
}

func docs(raw []json.RawMessage) [][]byte {
	out := make([][]byte, len(raw))
	for i, r := range raw {
		out[i] = r
	}
	return out
}

// conformanceRejections is where the client pipeline (lenient decoding,
// chunk expansion, verify.Client) must reject each conformance stream whose
// expected outcome is "failed": the index of the input event the reference
// client (@ag-ui/client 1.0.0) fails on, as the differential test in
// internal/interop confirms against the real package, and whether the
// rejection is the decoder's (the reference's zod validation) rather than
// the verifier's or the chunk expansion's.
var conformanceRejections = map[string]struct {
	index  int
	decode bool
}{
	"chunk-conflicting-role-fatal":            {2, false},
	"chunk-conflicting-tool-name-fatal":       {2, false},
	"content-without-start-fatal":             {1, false},
	"event-after-run-finished-fatal":          {2, false},
	"first-event-not-run-started-fatal":       {0, false},
	"first-tool-chunk-missing-name-fatal":     {1, false},
	"malformed-known-field-fatal":             {2, true},
	"nested-run-started-fatal":                {1, false},
	"reasoning-discipline-verified":           {1, false},
	"run-finished-with-active-subagent-fatal": {5, false},
	"step-finished-without-start-fatal":       {1, false},
	"subagent-finished-unstarted-fatal":       {1, false},
	"subagent-started-missing-name-fatal":     {1, true},
	"unknown-outcome-array-fatal":             {1, true},
}

// TestConformanceStreams runs every shared conformance stream through the
// client pipeline. "completed" streams must be accepted, "failed" ones
// rejected at the event of conformanceRejections, by the verifier (or chunk
// expansion) or by the decoder as listed.
//
// One deliberate difference: truncated-run-reported-as-completed documents
// the reference client's admitted gap (a stream that stops without a
// terminal event is reported as completed). The specification says a
// truncated run must not count as a success, so Finish reports it as
// ErrTruncated; every event before the end is still accepted.
func TestConformanceStreams(t *testing.T) {
	streams := loadConformance(t)
	seen := 0
	for _, s := range streams {
		t.Run(s.Name, func(t *testing.T) {
			r := verify.Check(verify.ClientProfile, docs(s.Stream))
			if s.Name == "truncated-run-reported-as-completed" {
				if !errors.Is(r.Err, verify.ErrTruncated) || r.Index != len(s.Stream) {
					t.Fatalf("got index %d: %v; want ErrTruncated at the end", r.Index, r.Err)
				}
				return
			}
			switch s.Expect.Outcome {
			case "completed":
				if !r.OK() {
					t.Fatalf("rejected at %d: %v", r.Index, r.Err)
				}
			case "failed":
				seen++
				want, listed := conformanceRejections[s.Name]
				if !listed {
					t.Fatalf("failing stream not listed in conformanceRejections; got index %d: %v", r.Index, r.Err)
				}
				if r.OK() || r.Index != want.index {
					t.Fatalf("got ok=%v index %d (%v); want rejection at %d", r.OK(), r.Index, r.Err, want.index)
				}
				var de *agui.DecodeError
				var ve *verify.Error
				switch {
				case want.decode && !errors.As(r.Err, &de):
					t.Fatalf("want a decode error, got %v", r.Err)
				case !want.decode && !errors.As(r.Err, &ve):
					t.Fatalf("want a *verify.Error, got %v", r.Err)
				}
				t.Logf("%v  (reference: %q)", r.Err, s.Expect.ErrorContains)
			default:
				t.Fatalf("unexpected outcome %q", s.Expect.Outcome)
			}
		})
	}
	if seen != len(conformanceRejections) {
		t.Errorf("%d failing streams, %d listed", seen, len(conformanceRejections))
	}
}
