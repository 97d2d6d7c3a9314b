package otlptest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agui-go/sdk/otel/otlptest"
)

// What the receiver does not understand gets a 4xx status and is kept as
// an error; nothing of it counts as received.
func TestReceiverRefuses(t *testing.T) {
	tests := []struct {
		name, path, ctype, encoding, body string
		status                            int
	}{
		{"json", "/v1/traces", "application/json", "", `{}`, http.StatusUnsupportedMediaType},
		{"unknown encoding", "/v1/metrics", "application/x-protobuf", "br", "x", http.StatusUnsupportedMediaType},
		{"not gzip", "/v1/traces", "application/x-protobuf", "gzip", "plain", http.StatusBadRequest},
		{"not protobuf", "/v1/metrics", "application/x-protobuf", "", "\xff\xff\xff", http.StatusBadRequest},
		{"logs", "/v1/logs", "application/x-protobuf", "", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := otlptest.NewReceiver()
			defer rec.Close()
			req, _ := http.NewRequest(http.MethodPost, rec.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			if tt.encoding != "" {
				req.Header.Set("Content-Encoding", tt.encoding)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if rec.Err() == nil {
				t.Error("no error kept")
			}
			if len(rec.Spans()) != 0 || len(rec.Metrics()) != 0 {
				t.Error("something counted as received")
			}
		})
	}
}
