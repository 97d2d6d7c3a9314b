package client_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
)

// clientRecord is what a test observer heard of the client's runs.
type clientRecord struct {
	info      []client.RunInfo
	requests  []string // the header X-Test of each request
	responses []int
	events    []agui.EventType
	warnings  int
	ends      []error
}

func clientRecorder() (client.Observer, *clientRecord) {
	rec := &clientRecord{}
	return client.Observer{StartRun: func(ctx context.Context, info client.RunInfo) (context.Context, *client.RunTrace) {
		rec.info = append(rec.info, info)
		return ctx, &client.RunTrace{
			Request: func(req *http.Request) { req.Header.Set("X-Test", "observed") },
			Response: func(resp *http.Response, err error) {
				if err == nil {
					rec.responses = append(rec.responses, resp.StatusCode)
				}
			},
			Event:   func(ev agui.Event, _ client.Position) { rec.events = append(rec.events, ev.Type()) },
			Warning: func(agui.Warning) { rec.warnings++ },
			End:     func(err error) { rec.ends = append(rec.ends, err) },
		}
	}}, rec
}

func TestObserverRun(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		status  int
		events  []agui.EventType
		failed  bool
		warning bool
	}{
		{"success", frames(runStarted, runFinished), 200, []agui.EventType{agui.EventTypeRunStarted, agui.EventTypeRunFinished}, false, false},
		{"truncated", frames(runStarted), 200, []agui.EventType{agui.EventTypeRunStarted}, true, false},
		{"warned", frames(runStarted, `{"type":"RUN_FINISHED","threadId":"t","runId":"r","future":1}`), 200, []agui.EventType{agui.EventTypeRunStarted, agui.EventTypeRunFinished}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var header string
			srv := sseServer(t, tt.body, func(r *http.Request) { header = r.Header.Get("X-Test") })
			o, rec := clientRecorder()
			c, err := client.New(srv.URL, client.WithObserver(o))
			if err != nil {
				t.Fatal(err)
			}
			_, _, runErr := collect(t, c, input())
			if header != "observed" {
				t.Errorf("the request carried X-Test %q", header)
			}
			if len(rec.info) != 1 || rec.info[0].Input.RunID != "r" || rec.info[0].URL != srv.URL {
				t.Errorf("info %+v", rec.info)
			}
			if !slices.Equal(rec.responses, []int{tt.status}) || !slices.Equal(rec.events, tt.events) {
				t.Errorf("responses %v, events %v", rec.responses, rec.events)
			}
			if len(rec.ends) != 1 || (rec.ends[0] != nil) != tt.failed || !errors.Is(runErr, rec.ends[0]) {
				t.Errorf("ends %v (the run's error %v)", rec.ends, runErr)
			}
			if (rec.warnings > 0) != tt.warning {
				t.Errorf("%d warnings", rec.warnings)
			}
		})
	}
}
