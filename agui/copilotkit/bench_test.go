package copilotkit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/copilotkit"
	"github.com/agui-go/sdk/agui/server"
)

// benchAgent is a typical chat turn: a state delta, a tool call with its
// result and a reply streamed in 32 deltas.
func benchAgent() server.Agent[chatState] {
	words := strings.Fields(strings.Repeat("the quick brown fox jumps over the lazy dog ", 4))[:32]
	return server.AgentFunc[chatState](func(ctx context.Context, rc *server.RunContext[chatState]) (server.Outcome, error) {
		rc.UpdateState(func(s *chatState) { s.Turns++ })
		if err := rc.PublishStateDelta(); err != nil {
			return server.Outcome{}, err
		}
		if _, err := rc.EmitToolCall("get_weather", map[string]string{"city": "Paris"}, map[string]int{"temp": 21}); err != nil {
			return server.Outcome{}, err
		}
		m, err := rc.StartTextMessage()
		if err != nil {
			return server.Outcome{}, err
		}
		for _, w := range words {
			if err := m.Append(w + " "); err != nil {
				return server.Outcome{}, err
			}
		}
		return server.Success(), m.End()
	})
}

var benchRuns atomic.Int64

// BenchmarkRun is one run served by the agent's handler itself (plain)
// and through the runtime in either form, the handler plain and with
// durable runs and threads (as connect and stop need): the runtime's cost
// per run is the ratio of the rows. No network: the handlers' own work is
// all that is measured, so the ratio is the largest a deployment sees.
func BenchmarkRun(b *testing.B) {
	for _, cfg := range []struct {
		name string
		opts []server.HandlerOption
	}{{"handler", nil}, {"durable", durable()}} {
		h := server.NewHandler(benchAgent(), cfg.opts...)
		rt, err := copilotkit.New([]copilotkit.Agent{{ID: "chat", Handler: h}})
		if err != nil {
			b.Fatal(err)
		}
		for _, form := range []struct {
			name, path string
			target     http.Handler
			wrap       func(string) string
		}{
			{"plain", "/agent", h, func(s string) string { return s }},
			{"route", "/ck/agent/chat/run", rt, func(s string) string { return s }},
			{"envelope", "/ck", rt, func(s string) string {
				return `{"method":"agent/run","params":{"agentId":"chat"},"body":` + s + `}`
			}},
		} {
			b.Run(cfg.name+"/"+form.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					// Run ids are never reused, across -count repetitions too.
					id := strconv.FormatInt(benchRuns.Add(1), 10)
					req := httptest.NewRequest(http.MethodPost, form.path, strings.NewReader(form.wrap(runInput("t-"+id, "r-"+id, "weather?"))))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "text/event-stream")
					rec := httptest.NewRecorder()
					form.target.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatal(rec.Code, rec.Body)
					}
				}
			})
		}
	}
}

// BenchmarkOverhead measures the runtime's cost per run as ratios on a
// busy machine: each iteration runs the plain handler, the multi-route
// form and the envelope once each, in an order that rotates, and times
// each, so that the three meet the same load; the ratios
// of their median runs are reported (route/plain, envelope/plain; 1.05 is
// 5% more per run): a median, unlike a total, is not moved by the pauses
// a shared machine puts into a few runs. In memory (handler, durable) the
// ratios are the largest a deployment sees: a plain run there takes a few
// microseconds, of which reading the body and checking each frame for
// what the client's schema refuses take a tenth; over a loopback
// connection (the -tcp rows), as a deployment serves it, they are the
// runtime's share of what a client waits for.
func BenchmarkOverhead(b *testing.B) {
	for _, cfg := range []struct {
		name string
		opts []server.HandlerOption
		tcp  bool
	}{{"handler", nil, false}, {"durable", durable(), false}, {"handler-tcp", nil, true}, {"durable-tcp", durable(), true}} {
		b.Run(cfg.name, func(b *testing.B) {
			h := server.NewHandler(benchAgent(), cfg.opts...)
			rt, err := copilotkit.New([]copilotkit.Agent{{ID: "chat", Handler: h}})
			if err != nil {
				b.Fatal(err)
			}
			var srv *httptest.Server
			if cfg.tcp {
				// Over a loopback connection, as a deployment serves it
				// (the plain handler at /agent, the runtime under /ck).
				mux := http.NewServeMux()
				mux.Handle("/agent", h)
				copilotkit.Mount(mux, "/ck", rt)
				srv = httptest.NewServer(mux)
				defer srv.Close()
			}
			run := func(target http.Handler, path, body string) time.Duration {
				if srv != nil {
					req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "text/event-stream")
					start := time.Now()
					resp, err := srv.Client().Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					d := time.Since(start)
					if err != nil || resp.StatusCode != http.StatusOK {
						b.Fatal(err, resp.StatusCode)
					}
					return d
				}
				req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "text/event-stream")
				rec := httptest.NewRecorder()
				start := time.Now()
				target.ServeHTTP(rec, req)
				d := time.Since(start)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body)
				}
				return d
			}
			var took [3][]time.Duration
			i := 0
			for b.Loop() {
				for k := range 3 {
					form := (i + k) % 3
					id := strconv.FormatInt(benchRuns.Add(1), 10)
					in := runInput("t-"+id, "r-"+id, "weather?")
					switch form {
					case 0:
						took[0] = append(took[0], run(h, "/agent", in))
					case 1:
						took[1] = append(took[1], run(rt, "/ck/agent/chat/run", in))
					case 2:
						took[2] = append(took[2], run(rt, "/ck", `{"method":"agent/run","params":{"agentId":"chat"},"body":`+in+`}`))
					}
				}
				i++
			}
			plain := median(took[0])
			b.ReportMetric(float64(median(took[1]))/float64(plain), "route/plain")
			b.ReportMetric(float64(median(took[2]))/float64(plain), "envelope/plain")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
