package client

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		header   string
		min, max time.Duration
	}{
		{"", 0, 0},
		{"1", time.Second, time.Second},
		{" 120 ", 2 * time.Minute, 2 * time.Minute},
		{"-1", 0, 0},
		{"soon", 0, 0},
		{"99999999999", 0, 0}, // over 32 bits: not a delay we take
		{time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat), 28 * time.Second, 30 * time.Second},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, 0},
	} {
		if got := retryAfter(tc.header); got < tc.min || got > tc.max {
			t.Errorf("Retry-After %q: %v, want %v to %v", tc.header, got, tc.min, tc.max)
		}
	}
}
