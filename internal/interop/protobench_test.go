package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
)

// protoBenchEvents are the payloads of agui's BenchmarkProtoEncode and
// BenchmarkProtoDecode, as JSON.
func protoBenchEvents() (names []string, docs []string) {
	var msgs []string
	for i := range 8 {
		id := strings.Repeat("m", 1+i%3)
		msgs = append(msgs,
			`{"role":"user","id":"`+id+`u","content":"What is the weather in Seoul today?"}`,
			`{"role":"assistant","id":"`+id+`a","toolCalls":[{"type":"function","id":"c1","function":{"name":"weather","arguments":"{\"city\":\"Seoul\"}"}}]}`,
			`{"role":"tool","id":"`+id+`t","content":"{\"temp\":3}","toolCallId":"c1"}`)
	}
	return []string{"TextMessageContent", "ToolCallArgs", "StateSnapshot", "MessagesSnapshot"}, []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"The quick brown fox jumps over the lazy dog, "}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"{\"city\":\"Seoul\",\"unit\":\"c"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"counter":42,"items":[{"id":"a","done":true,"tags":["x","y"]},{"id":"b","done":false,"tags":[]}],"user":{"name":"Jiwoo","locale":"ko-KR","prefs":{"theme":"dark","beta":null}},"history":[1,2,3,4,5,6,7,8,9,10]}}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[` + strings.Join(msgs, ",") + `]}`,
	}
}

// BenchmarkProtoVsReference measures, in one run, our protobuf encoder and
// decoder and the reference's encode() and decode() in Node on the same
// events. The Node figures are Node's own mean over half a second after
// a warm-up, reported as ns/op of a sub-benchmark that does no Go work.
func BenchmarkProtoVsReference(b *testing.B) {
	dir, err := NodeDir()
	if err != nil {
		b.Skip(err)
	}
	names, docs := protoBenchEvents()
	cmd := exec.Command("node", "protobench.mjs", "500")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SUPPRESS_TRANSFORMATION_WARNINGS=1")
	cmd.Stdin = strings.NewReader(strings.Join(docs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, name := range names {
		var node struct{ EncodeNs, DecodeNs float64 }
		if err := json.Unmarshal([]byte(lines[i]), &node); err != nil {
			b.Fatal(err)
		}
		ev, err := agui.DecodeEvent([]byte(docs[i]))
		if err != nil {
			b.Fatal(err)
		}
		pb, err := agui.AppendEventProto(nil, ev)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/Encode/Go", func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = agui.AppendEventProto(buf[:0], ev)
			}
		})
		b.Run(name+"/Encode/Node", func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(node.EncodeNs, "ns/op")
		})
		b.Run(name+"/Decode/Go", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agui.DecodeEventProto(pb); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/Decode/Node", func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(node.DecodeNs, "ns/op")
		})
	}
}
