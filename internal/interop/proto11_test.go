package interop

import (
	"bytes"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/spectest"
)

// TestProtoParity11 checks our protobuf binding against an encoder built
// from the 1.1 .proto files (proto11.mjs: protobufjs, with @ag-ui/proto
// 1.0.0 encoding everything 1.0 has), byte for byte, on every event
// protoEvents gathers, as 1.1 has them, and on each of them that carries an
// encryptedValue given an encryptedValueType beside it. Our decoder reads
// the bytes back to the event.
func TestProtoParity11(t *testing.T) {
	t.Parallel()
	dir, err := NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	protoDir := filepath.Join(spectest.RequireVersion(t, "1.1"), "proto")
	names, docs := protoEvents(t)
	for i, n := 0, len(docs); i < n; i++ {
		if !bytes.Contains(docs[i], []byte(`"encryptedValue"`)) || bytes.Contains(docs[i], []byte(`"encryptedValueType"`)) {
			continue
		}
		doc := bytes.ReplaceAll(docs[i], []byte(`"encryptedValue":`), []byte(`"encryptedValueType":"sig-é","encryptedValue":`))
		if _, err := agui.DecodeEvent(doc); err != nil {
			t.Fatalf("%s with encryptedValueType: %v\n%s", names[i], err, doc)
		}
		names, docs = append(names, names[i]+" +encryptedValueType"), append(docs, doc)
	}
	ours := make([]string, len(docs))
	carrying := 0
	for i, doc := range docs {
		ev, err := agui.DecodeEvent(doc)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		b, err := agui.AppendEventProto(nil, ev)
		if err != nil {
			t.Fatalf("%s: AppendProto: %v", names[i], err)
		}
		ours[i] = hex.EncodeToString(b)
		if bytes.Contains(doc, []byte(`"encryptedValueType"`)) {
			carrying++
		}
		back, err := agui.DecodeEventProto(b)
		if err != nil {
			t.Fatalf("%s: DecodeEventProto: %v", names[i], err)
		}
		got, _ := back.AppendJSON(nil)
		if !sameEvent(t, doc, got, true) {
			t.Errorf("%s: decoded event differs\n sent %s\n got  %s", names[i], doc, got)
		}
	}
	cmd := exec.Command("node", "proto11.mjs", protoDir)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "SUPPRESS_TRANSFORMATION_WARNINGS=1")
	lines := make([]string, len(docs))
	for i, d := range docs {
		lines[i] = string(d)
	}
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node proto11.mjs: %v\n%s", err, stderr.Bytes())
	}
	theirs := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(theirs) != len(docs) {
		t.Fatalf("node proto11.mjs: %d lines for %d", len(theirs), len(docs))
	}
	mismatch := 0
	for i := range docs {
		if theirs[i] != ours[i] {
			mismatch++
			if mismatch <= 5 {
				t.Errorf("%s: bytes differ\n event  %s\n ours   %s\n theirs %s", names[i], docs[i], ours[i], theirs[i])
			}
		}
	}
	if mismatch > 0 {
		t.Fatalf("%d of %d events encode differently", mismatch, len(docs))
	}
	if carrying < 10 {
		t.Fatalf("only %d events carry encryptedValueType", carrying)
	}
	t.Logf("%d events byte-identical with the 1.1 .proto's encoding, %d of them with encryptedValueType", len(docs), carrying)
}
