package agui

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/internal/spectest"
)

// conformanceStream is the part of a shared conformance stream this package
// can check: the decoder's share of a client's work.
type conformanceStream struct {
	Name   string            `json:"name"`
	Stream []json.RawMessage `json:"stream"`
	Expect struct {
		Outcome          string   `json:"outcome"`
		Warnings         []string `json:"warnings"`
		EventAbsentPaths []string `json:"eventAbsentPaths"`
		EventTypesAbsent []string `json:"eventTypesAbsent"`
	} `json:"expect"`
}

// TestConformanceLenient runs every conformance stream through the lenient
// decoder, as a consuming client does before chunk expansion and
// verification (those stages are tested in the verify package). It checks
// what is the decoder's to get right: completed streams decode; warnings that
// name a JSON path or an event type are among ours; stripped members are
// gone from what we deliver.
func TestConformanceLenient(t *testing.T) {
	dir := spectest.Require(t)
	files, _ := filepath.Glob(filepath.Join(dir, "conformance", "streams", "*.json"))
	if len(files) < 40 {
		t.Fatalf("only %d streams", len(files))
	}
	for _, file := range files {
		var cs conformanceStream
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatal(err)
		}
		t.Run(cs.Name, func(t *testing.T) {
			var warnings []string
			var delivered []Event
			var failed error
			for i, raw := range cs.Stream {
				ev, ws, err := DecodeOptions{Lenient: true}.DecodeEvent(raw)
				for _, w := range ws {
					warnings = append(warnings, w.String())
				}
				var unknown *UnknownEventTypeError
				switch {
				case errors.As(err, &unknown):
					warnings = append(warnings, "dropped unknown event type "+unknown.Type)
				case err != nil:
					if failed == nil {
						failed = err
					}
					t.Logf("event %d rejected: %v", i, err)
				default:
					delivered = append(delivered, ev)
				}
			}
			if cs.Expect.Outcome == "completed" && failed != nil {
				t.Fatalf("the stream completes for the reference client, but decoding failed: %v", failed)
			}
			joined := strings.Join(warnings, "\n")
			for _, w := range cs.Expect.Warnings {
				if !strings.HasPrefix(w, "/") && strings.ToUpper(w) != w {
					continue // prose of the reference client's own warnings
				}
				if !strings.Contains(joined, w) {
					t.Errorf("no warning mentions %q; got:\n%s", w, joined)
				}
			}
			for _, p := range cs.Expect.EventAbsentPaths {
				idx, path, _ := strings.Cut(p, ".")
				i, err := strconv.Atoi(idx)
				if err != nil || i >= len(delivered) {
					continue // indices count events after chunk expansion
				}
				out, err := delivered[i].AppendJSON(nil)
				if err != nil {
					t.Fatal(err)
				}
				var v any
				_ = json.Unmarshal(out, &v)
				if hasPath(v, strings.Split(path, ".")) {
					t.Errorf("event %d still has %s: %s", i, path, out)
				}
			}
		})
	}
}

func hasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		next, ok := x[path[0]]
		return ok && hasPath(next, path[1:])
	case []any:
		i, err := strconv.Atoi(path[0])
		return err == nil && i < len(x) && hasPath(x[i], path[1:])
	}
	return false
}

// TestStreamDecoderMatchesDecodeOptions: a StreamDecoder returns, event by
// event, exactly what its Options' DecodeEvent returns (the same event, the
// same warnings, the same error), strict as well as lenient. It runs every
// conformance stream through one decoder of each mode per stream, as a
// client decodes a stream, so that the string cache carries from event to
// event; and every schema fixture, valid and invalid, through one strict
// decoder, so that strict mode is seen to reject what DecodeEvent rejects.
func TestStreamDecoderMatchesDecodeOptions(t *testing.T) {
	dir := spectest.Require(t)
	files, _ := filepath.Glob(filepath.Join(dir, "conformance", "streams", "*.json"))
	if len(files) < 40 {
		t.Fatalf("only %d streams", len(files))
	}
	lenient := DecodeOptions{Lenient: true}
	var strictRejected, strictAccepted, lenientRepaired int
	for _, file := range files {
		var cs conformanceStream
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatal(err)
		}
		var strictStream StreamDecoder // the zero value is strict
		lenientStream := StreamDecoder{Options: lenient}
		for i, raw := range cs.Stream {
			want, wantErr := DecodeEvent(raw)
			ev, ws, err := strictStream.DecodeEvent(raw)
			if !reflect.DeepEqual(ev, want) || ws != nil || !reflect.DeepEqual(err, wantErr) {
				t.Errorf("%s: event %d: strict StreamDecoder gives %#v %v %v, DecodeEvent %#v %v", cs.Name, i, ev, ws, err, want, wantErr)
			}
			if err != nil {
				strictRejected++
			} else {
				strictAccepted++
			}
			lwant, lwantWs, lwantErr := lenient.DecodeEvent(raw)
			lev, lws, lerr := lenientStream.DecodeEvent(raw)
			if !reflect.DeepEqual(lev, lwant) || !reflect.DeepEqual(lws, lwantWs) || !reflect.DeepEqual(lerr, lwantErr) {
				t.Errorf("%s: event %d: lenient StreamDecoder gives %#v %v %v, DecodeOptions.DecodeEvent %#v %v %v", cs.Name, i, lev, lws, lerr, lwant, lwantWs, lwantErr)
			}
			if err != nil && lerr == nil {
				lenientRepaired++
			}
		}
	}
	// The corpus holds events that only a lenient decoder reads, so both
	// modes were exercised, and differently.
	if strictRejected == 0 || strictAccepted == 0 || lenientRepaired == 0 {
		t.Errorf("strict rejected %d and accepted %d events; lenient read %d of the rejected", strictRejected, strictAccepted, lenientRepaired)
	}

	var strictStream StreamDecoder
	var rejected int
	for _, fx := range spectest.RequireFixtures(t) {
		data, err := os.ReadFile(fx.Path)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := DecodeEvent(data)
		ev, ws, err := strictStream.DecodeEvent(data)
		if !reflect.DeepEqual(ev, want) || ws != nil || !reflect.DeepEqual(err, wantErr) {
			t.Errorf("%s: strict StreamDecoder gives %#v %v %v, DecodeEvent %#v %v", fx.Name, ev, ws, err, want, wantErr)
		}
		if !fx.Valid && err != nil {
			rejected++
		}
	}
	if rejected == 0 {
		t.Error("no invalid fixture was rejected")
	}
	t.Logf("conformance events: strict rejected %d, accepted %d, lenient read %d of the rejected; invalid fixtures rejected: %d",
		strictRejected, strictAccepted, lenientRepaired, rejected)
}
