package natslog_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server/threads"
	"github.com/agui-go/sdk/agui/server/threads/threadstest"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// connectNATS connects to url for the length of the test.
func connectNATS(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// newThreads opens a thread store on its own connection to url.
func newThreads(t testing.TB, url string, opts natslog.ThreadsOptions) *natslog.Threads {
	t.Helper()
	s, err := natslog.NewThreads(context.Background(), connectNATS(t, url), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The NATS store keeps the contract of every thread store, against a real
// nats-server: each instance Open returns is another replica's, on a
// connection of its own, sharing the bucket.
func TestThreadsContract(t *testing.T) {
	url := startNATS(t)
	var buckets atomic.Int32
	threadstest.Run(t, func(t *testing.T, c threadstest.Config) threadstest.Backend {
		opts := natslog.ThreadsOptions{
			Bucket: fmt.Sprintf("THREADS_%d", buckets.Add(1)), Bounds: c.Bounds, TTL: c.TTL, Now: c.Now, Memory: true,
		}
		first := newThreads(t, url, opts)
		opened := 0
		return threadstest.Backend{
			Open: func() threads.Store {
				if opened++; opened == 1 {
					return first
				}
				return newThreads(t, url, opts)
			},
			Corrupt: func(threadID string) error {
				kv, err := jetstreamKV(t, url, opts.Bucket)
				if err != nil {
					return err
				}
				_, err = kv.Put(context.Background(), natslog.ThreadKey(threadID), []byte(`{"v":1,"threadId":`))
				return err
			},
		}
	})
}

func jetstreamKV(t *testing.T, url, bucket string) (jetstream.KeyValue, error) {
	js, err := jetstream.New(connectNATS(t, url))
	if err != nil {
		return nil, err
	}
	return js.KeyValue(context.Background(), bucket)
}

// A thread whose bounds allow more than NATS takes in one message keeps
// its newest messages within what it takes, and counts the rest as
// dropped: its update does not fail.
func TestThreadsFitMaxPayload(t *testing.T) {
	url := startNATS(t)
	nc := connectNATS(t, url)
	s, err := natslog.NewThreads(context.Background(), nc, natslog.ThreadsOptions{Memory: true, Bounds: threads.Bounds{MaxBytes: 8 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 20
	chunk := strings.Repeat("z", 64<<10) // 20 × 64 KiB: 1.25 MiB, past the 1 MB payload
	for i := range n {
		err := s.Update(ctx, "big", func(r *threads.Record) {
			r.Messages = append(r.Messages, &agui.UserMessage{ID: fmt.Sprintf("m%d", i), Content: agui.TextContent(chunk)})
		})
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	rec, err := s.Get(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, m := range rec.Messages {
		data, _ := m.AppendJSON(nil)
		size += len(data)
	}
	if rec.DroppedMessages == 0 || rec.DroppedMessages+len(rec.Messages) != n || size > int(nc.MaxPayload()) ||
		rec.Messages[len(rec.Messages)-1].MessageID() != fmt.Sprintf("m%d", n-1) {
		t.Fatalf("kept %d messages (%d bytes, newest %s), dropped %d", len(rec.Messages), size, rec.Messages[len(rec.Messages)-1].MessageID(), rec.DroppedMessages)
	}
}
