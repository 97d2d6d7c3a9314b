package adaptertest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/internal/testlog"
)

// addressLike matches what a client must not see of the server's
// surroundings: a URL, an IPv4 address, a host:port, a bracketed IPv6
// address.
var addressLike = regexp.MustCompile(`://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\blocalhost\b|[A-Za-z0-9\]]:\d{2,5}\b|\[[0-9a-fA-F:]*:[0-9a-fA-F:]*\]`)

// ErrorsCarryNoAddress checks that no RUN_ERROR an adapter's run ends with
// carries a URL or an address, whichever way the provider request fails: a
// refused connection (the SDK's error names the URL and the address it
// dialled), an HTTP error whose message names an upstream address and a
// status page, and a stream cut off mid-response. With
// server.WithErrorDetail the first two do name the address, which shows the
// summary was made from the detail rather than lost.
//
// agentFor builds the adapter's agent against the provider's API at
// baseURL (the scheme and host, no path; no retries); errBody renders the
// provider's JSON error body with message.
func ErrorsCarryNoAddress(t *testing.T, agentFor func(baseURL string) server.Agent[server.NoState], input string, errBody func(message string) string) {
	t.Helper()
	// A port nothing listens on: listen, note the address, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()

	const upstream = "upstream 10.20.30.40:8443 is unreachable; see https://status.internal.example/incidents/7"
	httpErr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, errBody(upstream))
	}))
	t.Cleanup(httpErr.Close)
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 1000\r\n\r\ndata: {\"partial\":")
		buf.Flush()
		conn.Close()
	}))
	t.Cleanup(cut.Close)

	for _, tc := range []struct {
		name, baseURL string
		detail        string // what WithErrorDetail must show; "" when nothing
	}{
		{"refused connection", refused, strings.TrimPrefix(refused, "http://")},
		{"HTTP error naming an address", httpErr.URL, "10.20.30.40:8443"},
		{"stream cut off", cut.URL, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, rec := testlog.NewRecorder()
			s := Summarize(RunHTTP(t, agentFor(tc.baseURL), input, server.WithLogger(logger)))
			if s.Failed == nil {
				t.Fatalf("the run did not fail: %v", s.Types)
			}
			t.Logf("RUN_ERROR %q", s.Failed.Message)
			if m := addressLike.FindString(s.Failed.Message); m != "" {
				t.Errorf("RUN_ERROR %q carries %q", s.Failed.Message, m)
			}
			if tc.detail == "" {
				return
			}
			logged := false
			for _, r := range rec.Records() {
				if e, _ := r.Attrs["error"].(string); strings.Contains(e, tc.detail) {
					logged = true
				}
			}
			if !logged {
				t.Errorf("the log lacks the detail %q: %+v", tc.detail, rec.Records())
			}
			s = Summarize(RunHTTP(t, agentFor(tc.baseURL), input, server.WithErrorDetail(), server.WithLogger(testlog.New(t))))
			if s.Failed == nil || !strings.Contains(s.Failed.Message, tc.detail) {
				t.Errorf("with WithErrorDetail the RUN_ERROR %+v lacks %q", s.Failed, tc.detail)
			}
		})
	}
}
