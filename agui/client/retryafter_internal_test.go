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
	} {
		if got := retryAfter(tc.header); got < tc.min || got > tc.max {
			t.Errorf("Retry-After %q: %v, want %v to %v", tc.header, got, tc.min, tc.max)
		}
	}
	// An HTTP date is a delay until then: exactly the date less the time
	// of the call, which lies between the clock's readings around it, so
	// the bounds hold however long the machine takes.
	for _, offset := range []time.Duration{30 * time.Second, -time.Hour} {
		date := time.Now().Add(offset).UTC().Truncate(time.Second)
		header := date.Format(http.TimeFormat)
		before := time.Now()
		got := retryAfter(header)
		after := time.Now()
		if min, max := max(date.Sub(after), 0), max(date.Sub(before), 0); got < min || got > max {
			t.Errorf("Retry-After %q: %v, want %v to %v", header, got, min, max)
		}
	}
}
