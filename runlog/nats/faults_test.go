package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// Run ids of any length and content: an id's bytes once became a subject
// token, so an id of about 3,000 bytes passed nats-server's control-line
// limit and the server closed the replica's connection for good, and ids
// holding "." or "*" addressed other subjects (issue 20). Every id below
// starts, appends, reads back, answers Info and Cancel, and the connection
// stays up for the next.
func TestRunIDsOfAnyLengthAndContent(t *testing.T) {
	l, nc := newLog(t, startNATS(t), 5*time.Second)
	ctx := context.Background()
	ids := []string{
		strings.Repeat("x", 3000), strings.Repeat("é", 5000), strings.Repeat("r", 64<<10),
		"a.b", "a.*", "a.>", ">", "*", "with space", "tab\there", "nul\x00byte",
		"run/1", "../../etc", "%2e%2e", "a", "A", // "a" and "A" are two runs
	}
	for i, id := range ids {
		w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: id, Owner: "a"})
		if err != nil {
			t.Fatalf("id %d (%d bytes): start: %v", i, len(id), err)
		}
		for j, terminal := range []bool{false, true} {
			if _, err := w.Append([]byte(fmt.Sprintf(`{"n":%d,"id":%q}`, j, id)), terminal); err != nil {
				t.Fatalf("id %d (%d bytes): append %d: %v", i, len(id), j, err)
			}
		}
		w.Close()
		got, err := read(t, l, id, 0)
		if err != nil || len(got) != 2 || !got[1].Terminal || string(got[0].Data) != fmt.Sprintf(`{"n":0,"id":%q}`, id) {
			t.Fatalf("id %d (%d bytes): read %d entries, %v", i, len(id), len(got), err)
		}
		info, err := l.Info(ctx, id)
		if err != nil || info.RunID != id || info.Last != 2 || !info.Ended {
			t.Fatalf("id %d (%d bytes): info %+v, %v", i, len(id), info, err)
		}
		if err := l.Cancel(ctx, id, "late"); !errors.Is(err, runlog.ErrEnded) {
			t.Fatalf("id %d (%d bytes): cancel of an ended run: %v", i, len(id), err)
		}
		if !nc.IsConnected() {
			t.Fatalf("id %d (%d bytes): the connection is %v", i, len(id), nc.Status())
		}
	}
	if _, err := l.Info(ctx, "never started"); !errors.Is(err, runlog.ErrNotFound) {
		t.Fatalf("info of an unknown id: %v", err)
	}
	// JSON, and so the protocol, cannot carry an id that is not UTF-8.
	if _, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "\xff\xfe", Owner: "a"}); err == nil {
		t.Fatal("a run id that is not UTF-8 was started")
	}
}

// Every read deletes the consumer it used: the server keeps one it was not
// told to delete for minutes, and a stream holds a bounded number, so reads
// that leave theirs behind end by making every read fail (issue 20: after
// 1,000 reads every POST and GET answered an empty 200). Reads to the end,
// reads stopped early by their caller and reads stopped by their context all
// leave none. AGUI_NATS_READS sets how many reads (default 3,000, three
// times the server's default limit).
func TestReadsLeaveNoConsumers(t *testing.T) {
	reads := 3000
	if s := os.Getenv("AGUI_NATS_READS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("AGUI_NATS_READS=%q: want a positive number", s)
		}
		reads = n
	}
	url := startNATS(t)
	l, nc := newLog(t, url, 5*time.Second)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "done", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for j := range 5 {
		if _, err := w.Append([]byte(`{}`), j == 4); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	live, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "live", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := live.Append([]byte(`{}`), false); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	const workers = 16
	for k := range workers {
		wg.Go(func() {
			for i := k; i < reads; i += workers {
				if err := oneRead(l, i); err != nil {
					select {
					case errs <- fmt.Errorf("read %d: %w", i, err):
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d reads in %v", reads, time.Since(start))

	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		t.Fatal(err)
	}
	si, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := si.State.Consumers; n != 0 {
		t.Fatalf("%d reads left %d consumers on the stream", reads, n)
	}
}

// oneRead is read number i of TestReadsLeaveNoConsumers: in turns, the
// finished run to its end, its first event only (the caller stops), and the
// live run until a short context ends.
func oneRead(l runlog.Log, i int) error {
	switch i % 3 {
	case 0:
		n := 0
		for _, err := range l.Read(context.Background(), "done", 0) {
			if err != nil {
				return err
			}
			n++
		}
		if n != 5 {
			return fmt.Errorf("%d events, want 5", n)
		}
	case 1:
		for _, err := range l.Read(context.Background(), "done", 2) {
			if err != nil {
				return err
			}
			break
		}
	default:
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		for _, err := range l.Read(ctx, "live", 0) {
			if err != nil {
				if n == 1 && errors.Is(err, context.Canceled) {
					return nil
				}
				return err
			}
			n++
			cancel() // after the one event there is: the read ends with ctx
		}
		return errors.New("a live read ended without its context's error")
	}
	return nil
}

// A log that loses messages it acknowledged (a single nats-server killed
// before it wrote them to disk: it syncs every two minutes by default)
// leaves the owner's own earlier message where it expects its latest. The
// owner must not take that for another replica's append, which would leave
// the run with no end: its Append fails with ErrUnavailable, and Close ends
// the run with RUN_LOG_UNAVAILABLE numbered after the last event it
// appended, so that a reader that got the lost events gets the end too.
func TestLogThatLostAcknowledgedEvents(t *testing.T) {
	url := startNATS(t)
	l, nc := newLog(t, url, 5*time.Second)
	ctx := context.Background()
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var streamSeqs []uint64
	js, _ := jetstream.New(nc)
	st, err := js.Stream(ctx, "AGUI_RUNLOG")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := w.Append([]byte(fmt.Sprintf(`{"n":%d}`, i+1)), false); err != nil {
			t.Fatal(err)
		}
		m, err := st.GetLastMsgForSubject(ctx, natslog.EventSubject("r"))
		if err != nil {
			t.Fatal(err)
		}
		streamSeqs = append(streamSeqs, m.Sequence)
	}
	follower := make(chan []runlog.Entry, 1)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a hang guard
	defer cancel()
	got5 := make(chan struct{})
	go func() {
		var got []runlog.Entry
		for e, err := range l.Read(rctx, "r", 0) {
			if err != nil {
				break
			}
			got = append(got, e)
			if e.Seq == 5 {
				close(got5)
			}
		}
		follower <- got
	}()
	<-got5
	for _, seq := range streamSeqs[3:] { // events 4 and 5 are lost
		if err := st.DeleteMsg(ctx, seq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Append([]byte(`{"n":6}`), false); !errors.Is(err, runlog.ErrUnavailable) {
		t.Fatalf("an append after the log lost events: %v, want ErrUnavailable", err)
	}
	w.Close()
	got := <-follower
	if n := len(got); n != 6 || got[5].Seq != 6 || !got[5].Terminal || !strings.Contains(string(got[5].Data), `"code":"RUN_LOG_UNAVAILABLE"`) {
		t.Fatalf("the follower got %d entries, the last %+v", n, got[n-1])
	}
	all, err := read(t, l, "r", 0)
	if err != nil || len(all) != 4 || all[3].Seq != 6 || !strings.Contains(string(all[3].Data), "lost events from 4 on") {
		t.Fatalf("the log now: %d entries, %v: %q", len(all), err, all[len(all)-1].Data)
	}
	info, err := l.Info(ctx, "r")
	if err != nil || !info.Ended || info.Last != 6 {
		t.Fatalf("info %+v, %v", info, err)
	}
}

// A start that failed halfway (its description made, its answer lost in
// an outage) does not burn the run id (issue 20: the retried POST got 409
// RUN_EXISTS, a read 410): while it may still be under way, Start answers
// ErrUnavailable (a 503 to retry); after, it takes the id over. A run that
// started for real stays ErrExists.
func TestHalfMadeStartIsTakenOver(t *testing.T) {
	l, nc := newLog(t, startNATS(t), steadyLease)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(ctx, "AGUI_RUNLOG_META")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Create(ctx, natslog.MetaKey("r"), []byte(`{"threadId":"t","runId":"r","owner":"gone"}`)); err != nil {
		t.Fatal(err)
	}
	defer natslog.SetStartWindow(natslog.SetStartWindow(time.Hour))
	if _, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"}); !errors.Is(err, runlog.ErrUnavailable) {
		t.Fatalf("a start while another may be under way: %v, want ErrUnavailable", err)
	}
	natslog.SetStartWindow(0)
	w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatalf("a start after a half-made one: %v", err)
	}
	if _, err := w.Append([]byte(`{}`), true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if info, err := l.Info(ctx, "r"); err != nil || info.Owner != "a" || !info.Ended {
		t.Fatalf("info %+v, %v", info, err)
	}
	if _, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "b"}); !errors.Is(err, runlog.ErrExists) {
		t.Fatalf("a start of a run that ran: %v, want ErrExists", err)
	}
	live, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "live", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "live", Owner: "b"}); !errors.Is(err, runlog.ErrExists) {
		t.Fatalf("a start of a live run with no event yet: %v, want ErrExists", err)
	}
}
