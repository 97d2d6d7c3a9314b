package natslog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// bucket is a KV bucket with reads that do not go back in time.
//
// nats.go makes every bucket with AllowDirect, so KeyValue.Get is a direct
// get, which any replica of a replicated bucket that has caught up answers.
// A put is acknowledged once a quorum holds it, so the one replica outside
// that quorum may still answer "no such key" for it: a run just started on
// this replica would be unknown to its own reader. Under load on two cores
// that happened to about one run in twenty (TestStartedRunIsKnownAtOnce).
// The stream's leader has applied every acknowledged put, so a miss on a
// replicated bucket is asked again of the leader.
//
// Its Get shadows the bucket's own; every other method is the bucket's.
type bucket struct {
	jetstream.KeyValue
	nc         *nats.Conn
	timeout    time.Duration // for a request whose context has no deadline
	replicated bool
}

func newBucket(nc *nats.Conn, kv jetstream.KeyValue, replicas int, timeout time.Duration) *bucket {
	return &bucket{KeyValue: kv, nc: nc, timeout: timeout, replicated: replicas > 1}
}

// Get is KeyValue.Get, with a miss on a replicated bucket confirmed by the
// leader. A leader that cannot be asked (one being elected, say) gives an
// error other than jetstream.ErrKeyNotFound, to be tried again.
func (b *bucket) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	e, err := b.KeyValue.Get(ctx, key)
	if !b.replicated || !errors.Is(err, jetstream.ErrKeyNotFound) {
		return e, err
	}
	return b.fromLeader(ctx, key)
}

// Latest is the key's latest revision, from the leader when the bucket is
// replicated: for a record that a later write may have changed (a
// thread), where an older revision would serve an older conversation.
func (b *bucket) Latest(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if !b.replicated {
		return b.KeyValue.Get(ctx, key)
	}
	return b.fromLeader(ctx, key)
}

// msgGetResponse is JetStream's answer to STREAM.MSG.GET, which only the
// stream's leader gives.
type msgGetResponse struct {
	Error *struct {
		Code        int                 `json:"code"`
		ErrCode     jetstream.ErrorCode `json:"err_code"`
		Description string              `json:"description"`
	} `json:"error"`
	Message *struct {
		Subject string    `json:"subject"`
		Seq     uint64    `json:"seq"`
		Header  []byte    `json:"hdrs"`
		Data    []byte    `json:"data"`
		Time    time.Time `json:"time"`
	} `json:"message"`
}

// fromLeader reads key's last message in the bucket's stream from the
// stream's leader and reads it as KeyValue.Get does: a delete or purge
// marker, or a marker the server left when the key expired, is
// ErrKeyNotFound.
func (b *bucket) fromLeader(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	name := b.Bucket()
	req, _ := json.Marshal(struct {
		LastFor string `json:"last_by_subj"`
	}{"$KV." + name + "." + key})
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}
	msg, err := b.nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET.KV_"+name, req)
	if err != nil {
		return nil, fmt.Errorf("natslog: bucket %s: asking its leader: %w", name, err)
	}
	var resp msgGetResponse
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return nil, fmt.Errorf("natslog: bucket %s: its leader's answer: %w", name, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrKeyNotFound
	case resp.Error != nil:
		return nil, fmt.Errorf("natslog: bucket %s: its leader: %s (%d)", name, resp.Error.Description, resp.Error.ErrCode)
	case resp.Message == nil:
		return nil, fmt.Errorf("natslog: bucket %s: its leader's answer has no message", name)
	}
	m := resp.Message
	e := &entry{bucket: name, key: key, value: m.Data, revision: m.Seq, created: m.Time}
	if len(m.Header) > 0 {
		h, err := nats.DecodeHeadersMsg(m.Header)
		if err != nil {
			return nil, fmt.Errorf("natslog: bucket %s: its leader's answer: %w", name, err)
		}
		switch h.Get("KV-Operation") {
		case "DEL":
			e.op = jetstream.KeyValueDelete
		case "PURGE":
			e.op = jetstream.KeyValuePurge
		case "":
			switch h.Get(jetstream.MarkerReasonHeader) {
			case "MaxAge", "Purge":
				e.op = jetstream.KeyValuePurge
			case "Remove":
				e.op = jetstream.KeyValueDelete
			}
		}
	}
	if e.op != jetstream.KeyValuePut {
		return nil, jetstream.ErrKeyNotFound
	}
	return e, nil
}

// entry is a jetstream.KeyValueEntry read from the leader.
type entry struct {
	bucket, key string
	value       []byte
	revision    uint64
	created     time.Time
	op          jetstream.KeyValueOp
}

func (e *entry) Bucket() string                  { return e.bucket }
func (e *entry) Key() string                     { return e.key }
func (e *entry) Value() []byte                   { return e.value }
func (e *entry) Revision() uint64                { return e.revision }
func (e *entry) Created() time.Time              { return e.created }
func (e *entry) Delta() uint64                   { return 0 }
func (e *entry) Operation() jetstream.KeyValueOp { return e.op }
