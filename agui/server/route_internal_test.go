package server

import "testing"

// A run route is named by the last three segments of the path, under any
// mount; nothing else is one.
func TestRunRoute(t *testing.T) {
	for _, tc := range []struct {
		path, id, route string
		ok              bool
	}{
		{"/agent/runs/r1/events", "r1", routeEvents, true},
		{"/agent/runs/r1/cancel", "r1", routeCancel, true},
		{"/runs/r1/events", "r1", routeEvents, true},
		{"/a/b/runs/a%2Fb%20c/events", "a/b c", routeEvents, true},
		{"/agent/runs/runs/events", "runs", routeEvents, true},
		{"/agent", "", "", false},
		{"/agent/runs/r1", "", "", false},
		{"/agent/runs//events", "", "", false},
		{"/agent/runs/r1/events/", "", "", false},
		{"/agent/runs/r1/events/more", "", "", false},
		{"/agent/runs/r1/stop", "", "", false},
		{"/agent/run/r1/events", "", "", false},
		{"/agent/runs/%zz/events", "", "", false},
		{"runs/r1/events", "", "", false},
	} {
		id, route, ok := runRoute(tc.path)
		if id != tc.id || route != tc.route || ok != tc.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", tc.path, id, route, ok, tc.id, tc.route, tc.ok)
		}
	}
}
