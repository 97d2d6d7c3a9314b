package natslog_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server"
	"github.com/agui-go/sdk/agui/server/runlog"
)

// BenchmarkAppendVsPublish sets the log's appends beside raw JetStream
// publishes of the same bytes to the same stream, in the same run, for 1
// and 100 runs at once (a goroutine each): "raw-async" is PublishMsgAsync
// with every acknowledgement awaited at the end (the ceiling: no order
// check, no lease), "raw-sync" one acknowledged PublishMsg per event, then
// the log by Options.Window: -1 one append at a time, 0 the default (64),
// then wider windows. Each iteration is one event
// (events/s counts every run's); the ratio to raw-async is the figure to
// read, since machines here are noisy.
func BenchmarkAppendVsPublish(b *testing.B) {
	url := startNATS(b)
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, wor"}`)
	for _, runs := range []int{1, 100} {
		b.Run(fmt.Sprintf("runs=%d/raw-async", runs), func(b *testing.B) {
			nc, js := rawStream(b, url)
			defer nc.Close()
			spread(b, runs, func(run, n int) error {
				subject := fmt.Sprintf("raw.ev.%d", run)
				for range n {
					if _, err := js.PublishAsync(subject, data); err != nil {
						return err
					}
				}
				<-js.PublishAsyncComplete()
				return nil
			})
		})
		b.Run(fmt.Sprintf("runs=%d/raw-sync", runs), func(b *testing.B) {
			nc, js := rawStream(b, url)
			defer nc.Close()
			spread(b, runs, func(run, n int) error {
				subject := fmt.Sprintf("raw.ev.%d", run)
				for range n {
					if _, err := js.Publish(context.Background(), subject, data); err != nil {
						return err
					}
				}
				return nil
			})
		})
		for _, window := range []int{-1, 0, 256, 1024} {
			b.Run(fmt.Sprintf("runs=%d/log-window=%d", runs, window), func(b *testing.B) {
				l, _ := newWindowLog(b, url, window)
				spread(b, runs, func(_, n int) error {
					w, err := l.Start(context.Background(), runlog.Info{ThreadID: "t", RunID: runlog.NewRunID(), Owner: "a"})
					if err != nil {
						return err
					}
					defer w.Close()
					for range n {
						if _, err := w.Append(data, false); err != nil {
							return err
						}
					}
					_, err = w.Append(data, true) // waits until all is in
					return err
				})
			})
		}
	}
}

// rawStream makes (again) a stream of its own for the raw publishes.
func rawStream(b *testing.B, url string) (*nats.Conn, jetstream.JetStream) {
	b.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	js, _ := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	ctx := context.Background()
	_ = js.DeleteStream(ctx, "RAW")
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "RAW", Subjects: []string{"raw.ev.*"}, Storage: jetstream.MemoryStorage}); err != nil {
		b.Fatal(err)
	}
	return nc, js
}

// spread runs b.N events over runs goroutines, each run(index, its share),
// timed from the first to the last, and reports events/s.
func spread(b *testing.B, runs int, run func(run, n int) error) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	b.ResetTimer()
	for i := range runs {
		n := b.N / runs
		if i < b.N%runs {
			n++
		}
		wg.Go(func() {
			if err := run(i, n); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkFirstByte is the time from a POST to the first byte of its
// stream, without durable runs and with them on the NATS log (appends one
// at a time, and pipelined as by default), on one in-process server: each iteration is
// one run of one delta, timed until the client reads the first frame.
func BenchmarkFirstByte(b *testing.B) {
	url := startNATS(b)
	agent := pacedAgent(1, 0)
	serve := func(b *testing.B, window int) string {
		if window < -1 {
			srv := httptest.NewServer(server.NewHandler(agent))
			b.Cleanup(srv.Close)
			return srv.URL
		}
		l, _ := newWindowLog(b, url, window)
		h := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: l, Authorize: server.AllowAll}))
		mux := http.NewServeMux()
		mux.Handle("/agent", h)
		srv := httptest.NewServer(mux)
		b.Cleanup(srv.Close)
		return srv.URL
	}
	for _, c := range []struct {
		name   string
		window int
	}{{"durable-off", -2}, {"nats-one-at-a-time", -1}, {"nats-default", 0}} {
		b.Run(c.name, func(b *testing.B) {
			base := serve(b, c.window)
			client := &http.Client{}
			buf := make([]byte, 1)
			b.ResetTimer()
			for i := range b.N {
				body := fmt.Sprintf(`{"threadId":"t","runId":"fb-%s-%d","messages":[]}`, c.name, i)
				resp, err := client.Post(base+"/agent", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(resp.Body, buf); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				b.StartTimer()
			}
		})
	}
}
