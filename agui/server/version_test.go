package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// encryptedAgent emits the three places 1.1's encryptedValueType travels:
// REASONING_ENCRYPTED_VALUE, a message and a tool call of a snapshot.
func encryptedAgent() server.Agent[server.NoState] {
	return server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		ev := agui.NewReasoningEncryptedValue(agui.ReasoningEncryptedValueSubtypeMessage, "m", "e1")
		ev.EncryptedValueType = new("redacted")
		if err := rc.Emit(ev); err != nil {
			return server.Outcome{}, err
		}
		snap := &agui.MessagesSnapshot{Messages: []agui.Message{&agui.AssistantMessage{
			ID: "a", EncryptedValue: new("e2"), EncryptedValueType: new("sig"),
			ToolCalls: []agui.ToolCall{{ID: "c", Function: agui.FunctionCall{Name: "f", Arguments: "{}"},
				EncryptedValue: new("e3"), EncryptedValueType: new("tc")}},
		}}}
		return server.Success(), rc.Emit(snap)
	})
}

// TestServedVersion checks what each declared consumer version is served:
// the stream's declared version, whether the 1.1 member survives, and what
// is logged.
func TestServedVersion(t *testing.T) {
	for _, tt := range []struct {
		name, declare string // declare "" sends no protocolVersion
		served        string
		keeps         bool
		log           string // substring of the one Warn record, "" for none
	}{
		{"current", "1.1", "1.1", true, ""},
		{"1.0 consumer", "1.0", "1.0", false, "dropped what 1.1 added"},
		{"no declaration", "", "1.0", false, "dropped what 1.1 added"},
		{"pre-1.0 consumer", "0.0.57", "1.0", false, "dropped what 1.1 added"},
		{"newer minor", "1.2", "1.1", true, "speaks protocol 1.2"},
		{"uninterpretable", "draft", "1.1", true, "cannot interpret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logger, rec := testlog.NewRecorder()
			body := `{"threadId":"t","runId":"r","messages":[]}`
			if tt.declare != "" {
				body = `{"threadId":"t","runId":"r","protocolVersion":"` + tt.declare + `","messages":[]}`
			}
			w := post(server.NewHandler(encryptedAgent(), server.WithLogger(logger)), body, nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			frames := strings.Split(strings.TrimSpace(w.Body.String()), "\n\n")
			var started struct{ ProtocolVersion string }
			if err := json.Unmarshal([]byte(strings.TrimPrefix(frames[0], "data: ")), &started); err != nil {
				t.Fatal(err)
			}
			if started.ProtocolVersion != tt.served {
				t.Errorf("RUN_STARTED declares %q, want %q", started.ProtocolVersion, tt.served)
			}
			s := w.Body.String()
			if n := strings.Count(s, `"encryptedValueType"`); (n == 3) != tt.keeps || (n != 0 && n != 3) {
				t.Errorf("%d encryptedValueType in the stream, keeps=%v:\n%s", n, tt.keeps, s)
			}
			for _, v := range []string{`"e1"`, `"e2"`, `"e3"`} {
				if !strings.Contains(s, v) {
					t.Errorf("the encrypted value %s is lost:\n%s", v, s)
				}
			}
			var warns []testlog.Record
			for _, r := range rec.Records() {
				if r.Level == slog.LevelWarn {
					warns = append(warns, r)
				}
			}
			switch {
			case tt.log == "" && len(warns) != 0:
				t.Errorf("unexpected warnings %+v", warns)
			case tt.log != "" && (len(warns) == 0 || !strings.Contains(warns[0].Message, tt.log)):
				t.Errorf("warnings %+v, want one with %q", warns, tt.log)
			}
			if !tt.keeps && len(warns) != 2 {
				t.Errorf("%d downgrade warnings, want one per event that lost something (2)", len(warns))
			}
		})
	}
}

// TestRefusesNewerMajor: a consumer of another major version is refused
// before the stream starts, with a JSON error naming both versions.
func TestRefusesNewerMajor(t *testing.T) {
	w := post(server.NewHandler(encryptedAgent()), `{"threadId":"t","runId":"r","protocolVersion":"2.0","messages":[]}`, nil)
	if w.Code != http.StatusBadRequest || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d %s: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	var answer struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil {
		t.Fatal(err)
	}
	body := answer.Error
	if body.Code != string(agui.HTTPCodeUnsupportedProtocolVersion) || !strings.Contains(body.Message, "2.0") ||
		!strings.Contains(body.Message, agui.ProtocolVersion) {
		t.Fatalf("body %+v", body)
	}

	// Without HTTP, a Runner refuses it the same way: an error, no RUN_STARTED.
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", ProtocolVersion: new("3.1")}
	for ev, err := range server.Run(context.Background(), encryptedAgent(), in) {
		if err == nil || ev != nil {
			t.Fatalf("got %v, %v; want only an error", ev, err)
		}
		if !strings.Contains(err.Error(), "3.1") {
			t.Errorf("error %v does not name the version", err)
		}
	}
}

// The served version does not depend on the binding: a protobuf consumer
// that declares 1.0 (or nothing) gets RUN_STARTED declaring "1.0" and no
// encryptedValueType (field 6 of REASONING_ENCRYPTED_VALUE, 14 of a
// message, 6 of a tool call), its encrypted values kept; a 1.1 consumer
// gets all three members.
func TestServedVersionProtobuf(t *testing.T) {
	for _, tt := range []struct {
		declare, served string
		keeps           bool
	}{
		{"1.1", "1.1", true},
		{"1.0", "1.0", false},
		{"", "1.0", false},
	} {
		body := `{"threadId":"t","runId":"r","messages":[]}`
		if tt.declare != "" {
			body = `{"threadId":"t","runId":"r","protocolVersion":"` + tt.declare + `","messages":[]}`
		}
		h := server.NewHandler(encryptedAgent(), server.WithLogger(nil))
		w := post(h, body, map[string]string{"Accept": server.MediaTypeProtobuf})
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != server.MediaTypeProtobuf {
			t.Fatalf("declared %q: status %d, %s", tt.declare, w.Code, w.Header().Get("Content-Type"))
		}
		evs := readProto(t, w.Body.Bytes())
		started, ok := evs[0].(*agui.RunStarted)
		if !ok || started.ProtocolVersion == nil || *started.ProtocolVersion != tt.served {
			t.Errorf("declared %q: first event %+v, want RUN_STARTED declaring %q", tt.declare, evs[0], tt.served)
		}
		var types, values []string
		for _, ev := range evs {
			switch e := ev.(type) { //agui:nonexhaustive the two events the agent puts encrypted values in
			case *agui.ReasoningEncryptedValue:
				values = append(values, e.EncryptedValue)
				if e.EncryptedValueType != nil {
					types = append(types, *e.EncryptedValueType)
				}
			case *agui.MessagesSnapshot:
				a := e.Messages[0].(*agui.AssistantMessage)
				c := a.ToolCalls[0]
				values = append(values, *a.EncryptedValue, *c.EncryptedValue)
				if a.EncryptedValueType != nil {
					types = append(types, *a.EncryptedValueType)
				}
				if c.EncryptedValueType != nil {
					types = append(types, *c.EncryptedValueType)
				}
			}
		}
		if strings.Join(values, ",") != "e1,e2,e3" {
			t.Errorf("declared %q: encrypted values %v, want e1,e2,e3", tt.declare, values)
		}
		want := ""
		if tt.keeps {
			want = "redacted,sig,tc"
		}
		if strings.Join(types, ",") != want {
			t.Errorf("declared %q: encryptedValueType %v, want %q", tt.declare, types, want)
		}
	}
}
