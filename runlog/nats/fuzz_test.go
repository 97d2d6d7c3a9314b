package natslog_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/internal/logtest"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// FuzzNATSIDsAndCursors is the memory log's fuzz target through the NATS
// log: any id (hashed into a bounded subject token and key), any cursor.
// One server for every input; each input under an id of its own, so that
// inputs repeating an id do not meet ErrExists, and every other input
// through a pipelined writer (Options.Window), whose runs pack events
// several a message, so that cursors land inside packed messages too.
func FuzzNATSIDsAndCursors(f *testing.F) {
	url := startNATS(f)
	nc, err := nats.Connect(url)
	if err != nil {
		f.Fatal(err)
	}
	defer nc.Close()
	var logs [2]*natslog.Log
	for i, window := range []int{-1, 8} {
		l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: steadyLease, Memory: true, Window: window})
		if err != nil {
			f.Fatal(err)
		}
		defer l.Close()
		logs[i] = l
	}
	logtest.AddSeeds(f)
	var input atomic.Int64
	f.Fuzz(func(t *testing.T, id string, n uint8, after uint64, size uint16) {
		k := input.Add(1)
		if id != "" {
			id = fmt.Sprint(k, "/", id)
		}
		logtest.IDAndCursor(t, logs[k%2], id, int(n%8), after, int(size))
		if !nc.IsConnected() {
			t.Fatalf("the connection is %v", nc.Status())
		}
	})
}
