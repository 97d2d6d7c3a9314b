package natslog_test

import (
	"context"
	"log"
	"log/slog"
	"net/http"

	"github.com/nats-io/nats.go"

	"github.com/agui-go/sdk/agui/server"
	natslog "github.com/agui-go/sdk/runlog/nats"
)

// A replica of an agent served with durable runs on a JetStream cluster:
// the connection reconnects however long NATS is away, the run log keeps
// three copies of everything, and any replica can replay or cancel a run
// that another one runs.
func ExampleConnect() {
	nc, err := natslog.Connect("nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224",
		slog.Default(), nats.Name("agent replica a"))
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	runs, err := natslog.New(context.Background(), nc, natslog.Options{Replicas: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer runs.Close()

	agent := server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
		return server.Success(), rc.Say("hello")
	})
	// AllowAll lets anyone reattach to or cancel any run: a real server
	// checks the caller against the run's thread instead.
	h := server.NewHandler(agent, server.WithDurableRuns(server.DurableConfig{Log: runs, Authorize: server.AllowAll, Replica: "a"}))
	server.Mount(http.DefaultServeMux, "/agent", h)
	log.Fatal(http.ListenAndServe(":8000", nil))
}
