package copilotkit

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// readAll reads a body of a known length into one slice of that length,
// and refuses one that is shorter or longer than it said, or over the
// envelope's bound; a body of unknown length is read up to the bound.
func TestReadAll(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		length  int64
		wantErr string
	}{
		{"exact", `{"a":1}`, 7, ""},
		{"empty", ``, 0, ""},
		{"unknown length", `{"a":1}`, -1, ""},
		{"shorter than said", `{"a":1}`, 9, "fewer bytes than its Content-Length (9)"},
		{"longer than said", `{"a":1}`, 5, "longer than its Content-Length (5)"},
		{"over the bound", `{}`, maxEnvelope + 1, "request body too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(strings.NewReader(tc.body)))
			r.ContentLength = tc.length
			got, err := readAll(httptest.NewRecorder(), r)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr == "" && string(got) != tc.body:
				t.Fatalf("read %q, want %q", got, tc.body)
			case tc.wantErr == "" && tc.length >= 0 && cap(got) != int(tc.length):
				t.Fatalf("a body of %d bytes read into a slice of capacity %d", tc.length, cap(got))
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
	// Over the bound, with no length said: as http.MaxBytesReader says it.
	r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(strings.NewReader(strings.Repeat(" ", maxEnvelope+1))))
	r.ContentLength = -1
	if _, err := readAll(httptest.NewRecorder(), r); !errors.As(err, new(*http.MaxBytesError)) {
		t.Fatalf("error %v, want *http.MaxBytesError", err)
	}
}
