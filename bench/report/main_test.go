package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/agui-go/sdk/bench
cpu: Test CPU
date: 2026-07-01T10:00:00Z
ncpu: 2
load-start: 1.0 2.0 3.0
BenchmarkEmitDelta/agui-go-2         	 100	       500 ns/op	       100.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkEmitDelta/community-2       	 100	      5000 ns/op	      2000 cpu-ns/op	     600 B/op	       9 allocs/op
BenchmarkEmitDelta/agui-go-2         	 100	       700 ns/op	       300.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkEmitDelta/community-2       	 100	      7000 ns/op	      4000 cpu-ns/op	     600 B/op	       9 allocs/op
BenchmarkLoopbackRun1000/plain-noflush-2 	 10	   500000 ns/op	       400 cpu-ns/delta	      500.0 ns/delta
BenchmarkLoopbackRun1000/plain-flush-2   	 10	  2000000 ns/op	      2000 cpu-ns/delta	     2000 ns/delta
BenchmarkLoopbackRun1000/plain-pieces-2  	 10	   200000 ns/op	       250 cpu-ns/delta	      200.0 ns/delta
BenchmarkLoopbackRun1000/agui-go-2   	 10	   625000 ns/op	       500 cpu-ns/delta	      625.0 ns/delta
BenchmarkClientRead/agui-go-2        	 10	   300000 ns/op	       200 cpu-ns/frame	      300.0 ns/frame	  100000 B/op	     1004 allocs/op
BenchmarkClientRead/neutral-2        	 10	   300000 ns/op	       100 cpu-ns/frame	      300.0 ns/frame
BenchmarkClientReadMemory/body/agui-go-2    	 10	   200000 ns/op	       200 cpu-ns/frame	      200.0 ns/frame
BenchmarkClientReadMemory/frames/agui-go-2  	 10	   220000 ns/op	       220 cpu-ns/frame	      220.0 ns/frame
BenchmarkClientReadMemory/body/neutral-2    	 10	    40000 ns/op	        40 cpu-ns/frame	       40.0 ns/frame
BenchmarkClientReadFrames/agui-go-2  	 10	   900000 ns/op	      2500 cpu-ns/frame	      900.0 ns/frame
BenchmarkClientReadEscaped/agui-go-2 	 10	   400000 ns/op	       240 cpu-ns/frame	      400.0 ns/frame
BenchmarkClientReadEscaped/neutral-2 	 10	   400000 ns/op	       110 cpu-ns/frame	      400.0 ns/frame
BenchmarkDurableEmit1000/off-2       	 10	   200000 ns/op	       150 cpu-ns/delta	      200.0 ns/delta	   10000 B/op	      50 allocs/op
BenchmarkDurableEmit1000/memorylog-2 	 10	   400000 ns/op	       390 cpu-ns/delta	      400.0 ns/delta	  100000 B/op	     150 allocs/op
BenchmarkDurableEmit100/off-2        	 10	    60000 ns/op	       600 cpu-ns/delta	      600.0 ns/delta	    9100 B/op	      50 allocs/op
BenchmarkDurableEmit100/memorylog-2  	 10	    90000 ns/op	       930 cpu-ns/delta	      900.0 ns/delta	   19000 B/op	     105 allocs/op
BenchmarkPacedLatency/pace=1ms/streams=100/agui-go-2     	 1	 200000000 ns/op	 5000 cpu-ns/delta	 0 late-%	 1500 p50-µs	 4000 p99-µs
BenchmarkPacedLatency/pace=1ms/streams=100/plain-flush-2 	 1	 200000000 ns/op	 6000 cpu-ns/delta	 2.5 late-%	  500 p50-µs	 2000 p99-µs
BenchmarkIdleRun/agui-go-2           	 3	 1 ns/op	     4000 bytes/run
BenchmarkIdleRun/community-2         	 3	 1 ns/op	     2000 bytes/run
PASS
load-end: 1.5 2.5 3.5
`

func TestRender(t *testing.T) {
	run, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := run.median("EmitDelta/agui-go", "cpu-ns/op"); got != 200 {
		t.Errorf("median %v, want 200", got)
	}
	if got, _ := run.median("PacedLatency/pace=1ms/streams=100/agui-go", "p99-µs"); got != 4000 {
		t.Errorf("p99 %v, want 4000", got)
	}
	doc, err := render([]*results{run}, "", "make bench-report")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"One run, taken 2026-07-01T10:00:00Z on Test CPU, linux/amd64, 2 logical CPUs",
		"load average (1, 5, 15 min) 1.0 2.0 3.0 at the start, 1.5 2.5 3.5 at the end",
		"Each figure is that run's:",
		// CPU: 3000/200 = 15; wall: 6000/600 = 10.
		"| Emit a text delta into a writer | community | 200 | 3000 | 15.0× | 10.0× |",
		// A row with no figures says so rather than inventing one.
		"| Encode a text delta (JSON alone) | community | — | — | not measured | not measured |",
		"| 4000 B | 2000 B | 0.50× |",
		"agui-go's client reads a frame of the whole-body server in 300 ns (wall; 200 ns of CPU time) and 1.00 allocations",
		// Yardsticks: each says its baseline. Speed 250/500, 2000/500, 400/500.
		"| Unpaced loopback run of 1,000 deltas (CPU per delta) | " + pieces + " | 500 ns | 250 ns | 0.50× speed | ≥ 0.9× speed |",
		"| Unpaced loopback run of 1,000 deltas (CPU per delta) | " + flushEach + " | 500 ns | 2000 ns | 4.00× speed | — |",
		"| Unpaced loopback run of 1,000 deltas (CPU per delta) | " + noFlush + " | 500 ns | 400 ns | 0.80× speed | — |",
		"| 200 ns | 3000 ns | 15.0× speed | ≥ 25× speed |",
		// Client cases over the best case, the server's share in: 2500/200, 240/200.
		"| 2500 ns | 200 ns | 12.50× cost | — |",
		"| 240 ns | 200 ns | 1.20× cost | — |",
		// In memory: 220/200; the escape-heavy case was not in the sample.
		"| Client read in memory (no socket, no server), one frame per read: CPU per frame | " + memBest + " | 220 ns | 200 ns | 1.10× cost | ≤ 1.3× cost |",
		"| Client read in memory, escape-heavy deltas: CPU per frame | " + memBest + " | — | — | not measured | ≤ 1.3× cost |",
		"| Neutral reader, frame-by-frame server: CPU per frame, the server's included | the neutral reader on the whole-body server: what any client pays for frames one at a time | — | — | not measured | — |",
		// Durable, 1,000-delta runs: +240 ns per delta.
		"| 390 ns | 150 ns | +240 ns | ≤ +50 ns |",
		// Marginal: memorylog (390000-93000)/900 = 330, off (150000-60000)/900 = 100.
		"| 330 ns | 100 ns | +230 ns | ≤ +50 ns |",
		// Allocations (150-105)/900 = 0.05 and 0; bytes 90 and 1.
		"| 0.050 | 0.000 | +0.050 | +0 |",
		"| 90 B | 1 B | +89 B | — |",
		// Once: memorylog 105 - 5 = 100, off 50; 19000 - 9000 = 10000, 9100 - 100 = 9000.
		"a durable run adds +50 allocations and +1000 B",
		"| 4000 B | 2000 B | 2.00× the bytes | ≤ 1× |",
		// Latency: 1500/500 and 4000/2000.
		"| 1ms | 100 | 1500 | 500 | 3.00× | 4000 | 2000 | 2.00× | 0.0 / 2.5 |",
		"| 10ms | 1000 | — | — | not measured | — | — | not measured | — |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in:\n%s", want, doc)
		}
	}
}

// Two runs far apart in time: every figure is the range of the two, and
// each run's machine and load are stated.
func TestRenderRanges(t *testing.T) {
	first, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	later := strings.NewReplacer(
		"date: 2026-07-01T10:00:00Z", "date: 2026-07-08T22:00:00Z",
		"load-start: 1.0 2.0 3.0", "load-start: 0.1 0.2 0.3",
		"       250 cpu-ns/delta", "       450 cpu-ns/delta", // plain-pieces
		" 1500 p50-µs", " 600 p50-µs",
	).Replace(sample)
	second, err := parse(strings.NewReader(later))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := render([]*results{first, second}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 runs, each figure given as the range",
		"1. Run taken 2026-07-01T10:00:00Z on Test CPU",
		"2. Run taken 2026-07-08T22:00:00Z on Test CPU, linux/amd64, 2 logical CPUs; load average (1, 5, 15 min) 0.1 0.2 0.3 at the start, 1.5 2.5 3.5 at the end.",
		// 250/500 and 450/500.
		"| 500 ns | 250–450 ns | 0.50–0.90× speed | ≥ 0.9× speed |",
		// Unchanged figures stay single values.
		"| 200 ns | 3000 ns | 15.0× speed | ≥ 25× speed |",
		// 600/500 and 1500/500.
		"| 1ms | 100 | 600–1500 | 500 | 1.20–3.00× |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in:\n%s", want, doc)
		}
	}
}

// The load given on the command line is the first run's when its file
// does not say.
func TestLoadFlagFallback(t *testing.T) {
	run, err := parse(strings.NewReader("cpu: X\nBenchmarkX-2 1 1 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	if run.load() != "" {
		t.Fatalf("load %q from a file that gives none", run.load())
	}
	run.config["load"] = "1 2 3 at the start"
	if !strings.Contains(run.machine(), "load average (1, 5, 15 min) 1 2 3 at the start") {
		t.Errorf("machine %q", run.machine())
	}
}

func TestParseRejectsABadValue(t *testing.T) {
	if _, err := parse(strings.NewReader("BenchmarkX-2 1 abc ns/op\n")); err == nil {
		t.Fatal("no error for a value that is not a number")
	}
}
