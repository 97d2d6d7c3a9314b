package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agui-go/sdk/agui/server/runlog"
	"github.com/agui-go/sdk/internal/testlog"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// cluster is a JetStream cluster of real nats-servers in this process.
type cluster struct {
	servers []*natsserver.Server
}

// startCluster runs n nats-servers routed to each other as one JetStream
// cluster, and waits until it has a meta leader.
func startCluster(t *testing.T, n int) *cluster {
	t.Helper()
	c := &cluster{}
	// Every server routes to every other, so the cluster ports are chosen
	// first: free ones, from the kernel.
	ports := make([]int, n)
	routes := make([]*url.URL, n)
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		routes[i] = &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", ports[i])}
	}
	for i := range n {
		opts := &natsserver.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: natsserver.ClusterOpts{Name: "agui", Host: "127.0.0.1", Port: ports[i]},
			Routes:  routes,
		}
		s, err := natsserver.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		c.servers = append(c.servers, s)
	}
	for _, s := range c.servers {
		if !s.ReadyForConnections(30 * time.Second) {
			t.Fatal("nats-server did not start")
		}
	}
	nc := c.connect(t)
	defer nc.Close()
	js, _ := jetstream.New(nc)
	// Ready once a stream with a copy on every server can be placed: the
	// meta leader has been elected and has heard from every peer.
	waitUntil(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "PROBE", Subjects: []string{"probe"}, Replicas: n, Storage: jetstream.MemoryStorage})
		return err == nil && js.DeleteStream(ctx, "PROBE") == nil
	})
	return c
}

// urls is every server's client URL, for a connection that fails over.
func (c *cluster) urls() string {
	var u []string
	for _, s := range c.servers {
		if s.Running() {
			u = append(u, s.ClientURL())
		}
	}
	return strings.Join(u, ",")
}

func (c *cluster) connect(t *testing.T) *nats.Conn {
	t.Helper()
	nc, err := natslog.Connect(c.urls(), testlog.New(t), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

// server returns the running server named name.
func (c *cluster) server(name string) *natsserver.Server {
	for _, s := range c.servers {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// streamReplicas is the replica count of stream name.
func streamReplicas(t *testing.T, js jetstream.JetStream, name string) int {
	t.Helper()
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config.Replicas
}

// Replicas creates the stream and both buckets with that many copies, and a
// stream an operator created beforehand with three keeps three when the
// log opens it with the default (issue 20: New scaled it down to one).
func TestReplicasCreatedAndRespected(t *testing.T) {
	c := startCluster(t, 3)
	nc := c.connect(t)
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()

	l, err := natslog.New(ctx, nc, natslog.Options{Prefix: "R3", Replicas: 3, Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for _, name := range []string{"R3", "KV_R3_META", "KV_R3_LEASE"} {
		if r := streamReplicas(t, js, name); r != 3 {
			t.Errorf("%s has %d replicas, want 3", name, r)
		}
	}

	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "OPS", Subjects: []string{"ops.ev.*"}, Replicas: 3, AllowAtomicPublish: true}); err != nil {
		t.Fatal(err)
	}
	l, err = natslog.New(ctx, nc, natslog.Options{Prefix: "OPS", Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if r := streamReplicas(t, js, "OPS"); r != 3 {
		t.Errorf("the pre-created stream has %d replicas after New, want its 3", r)
	}
	for _, name := range []string{"KV_OPS_META", "KV_OPS_LEASE"} {
		if r := streamReplicas(t, js, name); r != 1 {
			t.Errorf("%s, created by New, has %d replicas, want 1", name, r)
		}
	}
}

// With three copies, killing the server that leads the run's stream in
// the middle of a run loses nothing: the writer's appends go on through the
// new leader, and a reader on another connection sees every event once, in
// order, and exactly one terminal event.
func TestRunSurvivesTheStreamLeaderKilled(t *testing.T) {
	c := startCluster(t, 3)
	ncW, ncR := c.connect(t), c.connect(t)
	defer ncW.Close()
	defer ncR.Close()
	ctx := context.Background()
	opts := natslog.Options{Replicas: 3, Lease: 5 * time.Second, Window: -1}
	lw, err := natslog.New(ctx, ncW, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	lr, err := natslog.New(ctx, ncR, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()

	w, err := lw.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	const events = 40
	got := make(chan []runlog.Entry, 1)
	readErr := make(chan error, 1)
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		var out []runlog.Entry
		for e, err := range lr.Read(rctx, "r", 0) {
			if err != nil {
				readErr <- err
				return
			}
			out = append(out, e)
		}
		got <- out
	}()
	js, _ := jetstream.New(ncW)
	var killed time.Time
	for i := range events {
		if i == events/2 {
			s, err := js.Stream(ctx, "AGUI_RUNLOG")
			if err != nil {
				t.Fatal(err)
			}
			leader := s.CachedInfo().Cluster.Leader
			srv := c.server(leader)
			if srv == nil {
				t.Fatalf("no server is named %q", leader)
			}
			srv.Shutdown()
			killed = time.Now()
			t.Logf("killed %s, the stream's leader, after %d events", leader, i)
		}
		if _, err := w.Append(fmt.Appendf(nil, `{"n":%d}`, i), i == events-1); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	w.Close()
	t.Logf("the writer was done %v after the kill", time.Since(killed).Round(time.Millisecond))
	defer func() { t.Logf("the reader was done %v after the kill", time.Since(killed).Round(time.Millisecond)) }()
	select {
	case err := <-readErr:
		t.Fatalf("the reader failed: %v", err)
	case out := <-got:
		if len(out) != events {
			t.Fatalf("the reader saw %d events, want %d", len(out), events)
		}
		for i, e := range out {
			if e.Seq != uint64(i+1) || string(e.Data) != fmt.Sprintf(`{"n":%d}`, i) || e.Terminal != (i == events-1) {
				t.Fatalf("event %d: %+v", i, e)
			}
		}
	}
	if _, err := lr.Info(ctx, "r"); err != nil && !errors.Is(err, runlog.ErrNotFound) {
		t.Fatal(err)
	}
}

// On a replicated stream an owner whose run another replica ended reads
// the refusal of its next append as such (ErrLeaseLost) and appends
// nothing after that end, appending one at a time or pipelined. (nats.go
// documents that a
// replicated stream may refuse with code 10164 rather than 10071; both are
// taken for "wrong last sequence". This server answered 10071 here.)
func TestLeaseLostOnAReplicatedStream(t *testing.T) {
	c := startCluster(t, 3)
	nc := c.connect(t)
	defer nc.Close()
	for _, window := range []int{-1, 8} {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			nc := c.connect(t)
			defer nc.Close()
			ctx := context.Background()
			prefix := fmt.Sprint("R3W", window)
			l, err := natslog.New(ctx, nc, natslog.Options{Prefix: prefix, Replicas: 3, Lease: steadyLease, Window: window})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			w, err := l.Start(ctx, runlog.Info{ThreadID: "t", RunID: "r", Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.Append([]byte(`{"n":1}`), false); err != nil {
				t.Fatal(err)
			}
			waitFor(t, l, "r", 1)
			js, _ := jetstream.New(nc)
			st, err := js.Stream(ctx, prefix)
			if err != nil {
				t.Fatal(err)
			}
			subject := strings.ToLower(prefix) + strings.TrimPrefix(natslog.EventSubject("r"), "agui_runlog")
			last, err := st.GetLastMsgForSubject(ctx, subject)
			if err != nil {
				t.Fatal(err)
			}
			// Another replica's end, as the lease watch appends it: the
			// fence first.
			fenceSubject := strings.ToLower(prefix) + strings.TrimPrefix(natslog.FenceSubject("r"), "agui_runlog")
			var fenceSeq uint64
			if fence, err := st.GetLastMsgForSubject(ctx, fenceSubject); err == nil {
				fenceSeq = fence.Sequence
			}
			if _, err := js.Publish(ctx, fenceSubject, nil, jetstream.WithExpectLastSequencePerSubject(fenceSeq)); err != nil {
				t.Fatal(err)
			}
			msg := nats.NewMsg(subject)
			msg.Header.Set("Agui-Seq", "2")
			msg.Header.Set("Agui-Terminal", "1")
			msg.Data = []byte(`{"type":"RUN_ERROR","code":"RUN_LOST","message":"x"}`)
			if _, err := js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(last.Sequence)); err != nil {
				t.Fatal(err)
			}
			var appendErr error
			for i := range 20 { // a windowed append fails once its batch is refused
				if _, appendErr = w.Append([]byte(`{"n":3}`), i == 19); appendErr != nil {
					break
				}
			}
			if !errors.Is(appendErr, runlog.ErrLeaseLost) {
				t.Fatalf("the owner's append after another replica's end: %v, want ErrLeaseLost", appendErr)
			}
			w.Close()
			all, err := read(t, l, "r", 0)
			if err != nil || len(all) != 2 || !strings.Contains(string(all[1].Data), "RUN_LOST") {
				t.Fatalf("the log: %d entries, %v", len(all), err)
			}
		})
	}
}
