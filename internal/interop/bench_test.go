package interop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui/client"
)

// cpuNow is the process's CPU time so far (user and system, every
// goroutine: the client's and the loopback server's, as the Node figure
// includes its in-process server).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDeltas is the length of the answer both clients read.
const benchDeltas = 1000

// benchBody is the answer bench.mjs serves: one message of benchDeltas
// deltas.
func benchBody() string {
	var b strings.Builder
	b.WriteString("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	b.WriteString("data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"msg-1\",\"role\":\"assistant\"}\n\n")
	for range benchDeltas {
		b.WriteString("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"msg-1\",\"delta\":\"Hello, world! \"}\n\n")
	}
	b.WriteString("data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"msg-1\"}\n\n")
	b.WriteString("data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	return b.String()
}

// BenchmarkReadAnswer compares, in one benchmark run, the Go client's Agent
// with the reference client's HttpAgent (in Node) on the same work: a run
// over loopback HTTP whose answer is 1,000 text deltas, read, verified and
// folded into the conversation. Each sub-benchmark reports ns/delta; the
// ratio of the two is the figure to quote.
func BenchmarkReadAnswer(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		body := benchBody()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body)
		}))
		defer srv.Close()
		c, _ := client.New(srv.URL)
		warm := c.NewThread() // a connection and the pools, as the reference's warm-up run does
		if _, err := warm.Run(context.Background(), client.RunParams{}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu0 := cpuNow()
		for b.Loop() {
			a := c.NewThread(client.WithThreadID("t"))
			if _, err := a.Run(context.Background(), client.RunParams{RunID: "r"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchDeltas, "ns/delta")
		b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/benchDeltas, "cpu-ns/delta")
	})
	b.Run("typescript", func(b *testing.B) {
		dir, err := NodeDir()
		if err != nil {
			b.Skip(err)
		}
		var ns, cpu float64
		for b.Loop() {
			cmd := exec.Command("node", "bench.mjs", strconv.Itoa(benchDeltas))
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				b.Fatalf("bench.mjs: %v\n%s", err, stderr)
			}
			var r struct{ NsPerDelta, CPUNsPerDelta float64 }
			if err := json.Unmarshal(out, &r); err != nil {
				b.Fatalf("bench.mjs printed %q: %v", out, err)
			}
			if ns == 0 || r.NsPerDelta < ns {
				ns = r.NsPerDelta
			}
			if cpu == 0 || r.CPUNsPerDelta < cpu {
				cpu = r.CPUNsPerDelta
			}
		}
		b.ReportMetric(ns, "ns/delta")
		b.ReportMetric(cpu, "cpu-ns/delta")
	})
}
