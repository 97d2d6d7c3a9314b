package copilotkit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSplitEnvelope: on any valid JSON, splitEnvelope finds what
// encoding/json finds: the same method, params and body bytes, and it
// refuses what encoding/json cannot read as an object.
func FuzzSplitEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"method":"agent/run","params":{"agentId":"chat"},"body":{"threadId":"t","messages":[{"id":"m","content":"a \"quoted\" } ] word\\"}]}}`,
		`{"METHOD":"info","Method":"agent/stop","x":[1,{"a":[]}],"body":null}`,
		`{"body":"x","body":[1,2]}`,
		`{"me\u0074hod":"info"}`,
		` { } `, `[]`, `"info"`, `7`, `null`, `{"method":{"a":1}}`, `{"params":[]}`,
		`{"a":-1.5e3,"b":true,"c":false,"d":null,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		method, params, body, err := splitEnvelope(data)
		if !json.Valid(data) {
			return // refused here or, inside the body, by the agent's handler
		}
		var want struct {
			Method json.RawMessage `json:"method"`
			Params json.RawMessage `json:"params"`
			Body   json.RawMessage `json:"body"`
		}
		werr := json.Unmarshal(data, &want)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q: splitEnvelope %v, encoding/json %v", data, err, werr)
		}
		if err != nil {
			return
		}
		for _, p := range []struct {
			name      string
			got, want []byte
		}{{"method", method, want.Method}, {"params", params, want.Params}, {"body", body, want.Body}} {
			if !bytes.Equal(p.got, p.want) {
				t.Fatalf("%q: %s is %q, encoding/json reads %q", data, p.name, p.got, p.want)
			}
		}
	})
}

// FuzzPlainParams: what plainParams reads it reads as encoding/json does,
// and what it declines encoding/json is left to read.
func FuzzPlainParams(f *testing.F) {
	for _, s := range []string{
		`{"agentId":"chat"}`, `{"agentId":"chat","threadId":"t-1"}`, ` { "AGENTID" : "a" , "agentid":"b"} `,
		`{}`, `{"agentId":null}`, `{"agentId":"é"}`, `{"agentId":"a\"b"}`, `{"agentId":1}`, `{"other":"x"}`,
		`{"agentId":"a",}`, `{"agentId":"a"}x`, `[]`, `{"agentId":"a"`, `{"agentId":nul}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agent, thread, ok := plainParams(data)
		if !ok {
			return
		}
		var want struct {
			AgentID  *string `json:"agentId"`
			ThreadID *string `json:"threadId"`
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%q: plainParams read it, encoding/json refuses it: %v", data, err)
		}
		same := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		if !same(agent, want.AgentID) || !same(thread, want.ThreadID) {
			t.Fatalf("%q: plainParams %v %v, encoding/json %v %v", data, agent, thread, want.AgentID, want.ThreadID)
		}
	})
}
