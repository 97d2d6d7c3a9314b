package natslog

import (
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server/runlog"
)

// readerBeat is how often a read of a live run tells the run's owner that it
// is still reading; the owner forgets a reader three beats after its last.
const readerBeat = time.Second

func (l *Log) readersSubject(runID string) string { return l.subj + ".readers." + key(runID) }

// announce tells the owner of a live run, every readerBeat until the
// returned function is called, that this read follows the run: the server
// on the owner's replica then does not take the run for abandoned while a
// client reads it through another replica (server.DurableConfig.Detach). A beat is
// "<log id> <read id>", the last one followed by " bye".
func (l *Log) announce(runID string) (stop func()) {
	subject := l.readersSubject(runID)
	beat := []byte(l.id + " " + runlog.NewRunID())
	_ = l.nc.Publish(subject, beat)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(readerBeat)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				_ = l.nc.Publish(subject, beat)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		_ = l.nc.Publish(subject, append(beat, " bye"...))
	}
}

// readers counts, for a writer, the reads of its run on other replicas'
// Logs (those on its own Log are the server's to count).
type readers struct {
	self string // the owner's Log id

	mu   sync.Mutex
	seen map[string]time.Time // read id → last beat
}

// heard takes one beat.
func (r *readers) heard(msg *nats.Msg) {
	f := strings.Fields(string(msg.Data))
	if len(f) < 2 || f[0] == r.self {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(f) > 2 {
		delete(r.seen, f[1])
		return
	}
	if r.seen == nil {
		r.seen = map[string]time.Time{}
	}
	r.seen[f[1]] = time.Now()
}

// count is how many reads beat within the last three beats.
func (r *readers) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id, at := range r.seen {
		if time.Since(at) > 3*readerBeat {
			delete(r.seen, id)
			continue
		}
		n++
	}
	return n
}

// RemoteReaders implements [runlog.RemoteReaders]: the reads of the run,
// through other replicas' Logs, that told the owner they follow it within
// the last three seconds.
func (w *writer) RemoteReaders() int { return w.readers.count() }
