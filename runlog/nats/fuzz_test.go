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
// inputs repeating an id do not meet ErrExists.
func FuzzNATSIDsAndCursors(f *testing.F) {
	url := startNATS(f)
	nc, err := nats.Connect(url)
	if err != nil {
		f.Fatal(err)
	}
	defer nc.Close()
	l, err := natslog.New(context.Background(), nc, natslog.Options{Lease: steadyLease, Memory: true})
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	logtest.AddSeeds(f)
	var input atomic.Int64
	f.Fuzz(func(t *testing.T, id string, n uint8, after uint64, size uint16) {
		if id != "" {
			id = fmt.Sprint(input.Add(1), "/", id)
		}
		logtest.IDAndCursor(t, l, id, int(n%8), after, int(size))
		if !nc.IsConnected() {
			t.Fatalf("the connection is %v", nc.Status())
		}
	})
}
