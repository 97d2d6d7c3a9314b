package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/chunks"
	"github.com/agui-go/sdk/agui/verify"
	"github.com/agui-go/sdk/internal/spectest"
)

// refVerdict is what node/verify.mjs reports for one stream.
type refVerdict struct {
	OK      bool              `json:"ok"`
	Index   int               `json:"index"`
	Message string            `json:"message"`
	Events  []json.RawMessage `json:"events"` // with "expand": what chunk expansion delivered
}

// reference runs the reference client's stages (enforceEvents,
// transformChunks, verifyEvents) over each stream; with args "expand", only
// the first two.
func reference(t *testing.T, streams [][][]byte, args ...string) []refVerdict {
	t.Helper()
	dir, err := NodeDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var in bytes.Buffer
	for _, s := range streams {
		in.WriteByte('[')
		for i, doc := range s {
			if i > 0 {
				in.WriteByte(',')
			}
			if err := json.Compact(&in, doc); err != nil {
				t.Fatalf("stream %d: %v", len(streams), err)
			}
		}
		in.WriteString("]\n")
	}
	cmd := exec.Command("node", append([]string{"verify.mjs"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.Bytes())
	}
	var verdicts []refVerdict
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v refVerdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("node output %q: %v", sc.Bytes(), err)
		}
		verdicts = append(verdicts, v)
	}
	if len(verdicts) != len(streams) {
		t.Fatalf("node answered %d streams of %d\n%s", len(verdicts), len(streams), stderr.Bytes())
	}
	return verdicts
}

// generated builds n streams from seeded random bytes. Each event is drawn
// from up to eight candidates: usually the first one our client profile
// accepts after the prefix (so streams get deep into valid territory), and
// now and then any candidate (so they also break in every way). About half
// of the streams end with a RUN_FINISHED candidate.
func generated(n int, seed uint64) [][]agui.Event {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	draw := func() []byte {
		b := make([]byte, 12)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	var out [][]agui.Event
	for range n {
		var stream []agui.Event
		var p prefixCheck
		if rng.UintN(20) != 0 {
			stream = append(stream, Events(append([]byte{16}, draw()...))[0]) // RUN_STARTED
			p.push(stream)
		}
		length := 1 + int(rng.UintN(32))
		for len(stream) < length {
			var pick agui.Event
			accepted := false
			for try := range 16 {
				ev := Events(draw())[0]
				if pick == nil {
					pick = ev
				}
				if rng.UintN(12) == 0 {
					pick = ev
					break
				}
				if p.accepts(stream, ev) {
					pick, accepted = ev, true
					break
				}
				_ = try
			}
			stream = append(stream, pick)
			if !accepted {
				p.push(stream)
			}
		}
		if rng.UintN(2) == 0 {
			stream = append(stream, Events(append([]byte{17}, draw()...))[0]) // RUN_FINISHED
		}
		out = append(out, stream)
	}
	return out
}

// prefixCheck answers whether our client profile accepts a stream prefix
// followed by one more event, as a fresh verify.Client observing all of it
// would, without observing the prefix again for every candidate: it keeps a
// client that has observed the prefix, and observes the candidate on it. An
// accepted candidate becomes part of the prefix (the caller appends it); a
// rejected one spoils the client, which is rebuilt from the prefix when it
// is next needed.
type prefixCheck struct {
	c        *verify.Client // has observed the prefix, or nil
	rejected bool           // the prefix itself is rejected
}

// accepts reports whether prefix followed by ev is accepted. When it is, the
// caller must append ev to the prefix before the next call.
func (p *prefixCheck) accepts(prefix []agui.Event, ev agui.Event) bool {
	if p.rejected {
		return false
	}
	if p.c == nil {
		p.c = new(verify.Client)
		for _, e := range prefix {
			if p.c.Observe(e) != nil {
				panic("interop: an accepted prefix no longer verifies")
			}
		}
	}
	if p.c.Observe(ev) != nil {
		p.c = nil
		return false
	}
	return true
}

// push records that stream's last event was appended without accepts
// approving it: the prefix is then accepted only if the client accepts that
// event after the rest.
func (p *prefixCheck) push(stream []agui.Event) {
	if p.rejected {
		return
	}
	if p.c == nil {
		p.c = new(verify.Client)
		for _, e := range stream[:len(stream)-1] {
			if p.c.Observe(e) != nil {
				panic("interop: an accepted prefix no longer verifies")
			}
		}
	}
	if p.c.Observe(stream[len(stream)-1]) != nil {
		p.rejected, p.c = true, nil
	}
}

type diffCase struct {
	name string
	docs [][]byte
}

func conformanceCases(t *testing.T) []diffCase {
	spec := spectest.Require(t)
	files, _ := filepath.Glob(filepath.Join(spec, "conformance", "streams", "*.json"))
	var out []diffCase
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Stream []json.RawMessage }
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		c := diffCase{name: strings.TrimSuffix(filepath.Base(p), ".json")}
		for _, d := range s.Stream {
			c.docs = append(c.docs, d)
		}
		out = append(out, c)
	}
	return out
}

// TestVerifierParity is the differential test of the client profile: the
// shared conformance streams and a few thousand generated streams go through
// the reference client's stages in Node and through verify.Check with the
// client profile (lenient decoding, chunk expansion, verify.Client). Both
// must accept the same streams and reject the others at the same input
// event; where the reference's verifier rejects, its message must name the
// event type our error names. One deliberate difference: we report a
// truncated run (a stream that ends inside a run) when the stream ends,
// which the reference accepts (conformance stream
// truncated-run-reported-as-completed); such streams compare as accepted.
func TestVerifierParity(t *testing.T) {
	t.Parallel()
	cases := append(conformanceCases(t), differentialCases(t)...)
	streams := make([][][]byte, len(cases))
	for i, c := range cases {
		streams[i] = c.docs
	}
	ref := reference(t, streams)

	var accepted, rejected, truncated int
	rules := map[string]int{}
	for i, c := range cases {
		ours := verify.Check(verify.ClientProfile, c.docs)
		ok, index := ours.OK(), ours.Index
		if errors.Is(ours.Err, verify.ErrTruncated) {
			ok, index = true, -1
			truncated++
		}
		r := ref[i]
		if ok != r.OK || index != r.Index {
			t.Errorf("%s: ours ok=%v index=%d (%v); reference ok=%v index=%d (%s)\nstream: %s",
				c.name, ok, index, ours.Err, r.OK, r.Index, r.Message, bytes.Join(c.docs, []byte("\n        ")))
			continue
		}
		if ok {
			accepted++
			continue
		}
		rejected++
		var ve *verify.Error
		if errors.As(ours.Err, &ve) && ve.Rule != 0 {
			rules[ve.Rule.String()]++
			if ve.Via == "" && strings.HasPrefix(r.Message, "Cannot send") && !strings.Contains(r.Message, string(ve.Event)) {
				t.Errorf("%s: we name %s, the reference says %q", c.name, ve.Event, r.Message)
			}
		} else {
			rules["decode"]++
		}
	}
	t.Logf("%d streams: %d accepted by both (%d of them truncated, which we report), %d rejected by both at the same event; rejections by rule: %v",
		len(cases), accepted, truncated, rejected, rules)
}

// differentialCases are the generated streams TestVerifierParity and
// TestChunkExpansionParity share (4000 from seed 1), built once: building
// them verifies every candidate prefix, which is costly under -race. The
// callers must not modify them.
func differentialCases(t *testing.T) []diffCase {
	t.Helper()
	cases, err := sharedDifferential()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

var sharedDifferential = sync.OnceValues(func() ([]diffCase, error) { return generatedCases(4000, 1) })

func generatedCases(n int, seed uint64) ([]diffCase, error) {
	var cases []diffCase
	for i, stream := range generated(n, seed) {
		c := diffCase{name: fmt.Sprintf("generated-%d", i)}
		for _, ev := range stream {
			doc, err := ev.AppendJSON(nil)
			if err != nil {
				return nil, fmt.Errorf("encode %T: %v", ev, err)
			}
			c.docs = append(c.docs, doc)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// TestChunkExpansionParity compares package chunks with the reference's
// transformChunks event by event: every stream of TestVerifierParity that
// holds a chunk goes through lenient decoding and chunks.Expander here, and
// through enforceEvents and transformChunks in Node. Both must deliver the
// same events (equal as JSON) and fail, if at all, at the same input event.
func TestChunkExpansionParity(t *testing.T) {
	t.Parallel()
	var cases []diffCase
	for _, c := range append(conformanceCases(t), differentialCases(t)...) {
		if bytes.Contains(bytes.Join(c.docs, nil), []byte("_CHUNK")) {
			cases = append(cases, c)
		}
	}
	streams := make([][][]byte, len(cases))
	for i, c := range cases {
		streams[i] = c.docs
	}
	ref := reference(t, streams, "expand")
	compared := 0
	for i, c := range cases {
		var x chunks.Expander
		var out []agui.Event
		ok, index := true, -1
		for j, doc := range c.docs {
			ev, _, err := agui.DecodeOptions{Lenient: true}.DecodeEvent(doc)
			if errors.Is(err, agui.ErrUnknownEventType) {
				continue
			}
			if err == nil {
				out, err = x.Expand(out, ev)
			}
			if err != nil {
				ok, index = false, j
				break
			}
		}
		r := ref[i]
		if ok != r.OK || index != r.Index {
			t.Errorf("%s: ours ok=%v index=%d; reference ok=%v index=%d (%s)", c.name, ok, index, r.OK, r.Index, r.Message)
			continue
		}
		if len(out) != len(r.Events) {
			t.Errorf("%s: we deliver %d events, the reference %d\nours: %s\nreference: %s", c.name, len(out), len(r.Events), showEvents(out), bytes.Join(rawBytes(r.Events), []byte(" ")))
			continue
		}
		for j, ev := range out {
			doc, err := ev.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if json.Unmarshal(doc, &a) != nil || json.Unmarshal(r.Events[j], &b) != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%s: event %d differs\nours:      %s\nreference: %s", c.name, j, doc, r.Events[j])
				break
			}
			compared++
		}
	}
	t.Logf("%d streams with chunks, %d delivered events equal", len(cases), compared)
}

func showEvents(events []agui.Event) []byte {
	var b []byte
	for _, ev := range events {
		b, _ = ev.AppendJSON(b)
		b = append(b, ' ')
	}
	return b
}

func rawBytes(rs []json.RawMessage) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}
