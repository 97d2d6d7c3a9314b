package natslog

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// Delivered is how many messages the log's reads have received from
// JetStream so far.
func (l *Log) Delivered() uint64 { return l.delivered.Load() }

// Probes is how many direct gets the log's reads made to find where to
// start.
func (l *Log) Probes() uint64 { return l.probes.Load() }

// EventSubject is the subject of a run's events under the default prefix.
func EventSubject(runID string) string { return "agui_runlog.ev." + key(runID) }

// SetStartWindow sets how long Start takes a half-made start for one still
// under way; it returns the previous setting (-1: none, the default of
// twice the request timeout).
func SetStartWindow(d time.Duration) time.Duration {
	old := startWindowOverride
	startWindowOverride = d
	return old
}

// MetaKey is the meta bucket's key of a run.
func MetaKey(runID string) string { return key(runID) }

// FenceSubject is the subject of a run's fence under the default prefix.
func FenceSubject(runID string) string { return "agui_runlog.fence." + key(runID) }

// StopRenewals stops a writer's lease renewals, as a busy machine whose
// renewals never land would.
func StopRenewals(w runlog.Writer) { w.(*writer).stopRenew() }

// ReadHooks are points where a test steps into a read: before and after
// each consumer the read makes, and after reopen asked the stream where the
// run is. Any may be nil. BeforeOpen gets the stream sequence the consumer
// is to start at (0: the run's first message), which it may move; an error
// from it fails that open.
type ReadHooks struct {
	BeforeOpen  func(startSeq *uint64) error
	AfterOpen   func()
	AfterBehind func()
}

// SetReadHooks sets l's read hooks; set them before the reads start.
func SetReadHooks(l *Log, h ReadHooks) {
	rh := &readHooks{afterOpen: h.AfterOpen, afterBehind: h.AfterBehind}
	if h.BeforeOpen != nil {
		rh.beforeOpen = func(cfg *jetstream.OrderedConsumerConfig) error {
			err := h.BeforeOpen(&cfg.OptStartSeq)
			if cfg.OptStartSeq != 0 {
				cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
			}
			return err
		}
	}
	l.hooks = rh
}

// ThreadKey is the bucket key of a thread's record.
func ThreadKey(threadID string) string { return key(threadID) }

// FromLeader reads key from kv as a replicated bucket's Get reads it when
// a replica says it has no such key: from the bucket stream's leader.
func FromLeader(ctx context.Context, nc *nats.Conn, kv jetstream.KeyValue, key string) (jetstream.KeyValueEntry, error) {
	return newBucket(nc, kv, 3, time.Second).fromLeader(ctx, key)
}
