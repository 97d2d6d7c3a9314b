// Command report turns a run of the bench module's benchmarks into
// BENCHMARKS.md: a table of ratios between agui-go and its peers, each from
// medians of the same run, with the machine and the load it ran under.
// `make bench-report` runs the benchmarks and then this.
//
// Usage: go run ./report -in bench.txt -benchstat stat.txt -load "start end" -out ../BENCHMARKS.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

func main() {
	in := flag.String("in", "bench.txt", "go test -bench output")
	stat := flag.String("benchstat", "", "benchstat output to include (optional)")
	load := flag.String("load", "", "load averages at the start and end of the run")
	cmd := flag.String("cmd", "", "the command that produced -in")
	out := flag.String("out", "../BENCHMARKS.md", "where to write")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	run, err := parse(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	var statText []byte
	if *stat != "" {
		if statText, err = os.ReadFile(*stat); err != nil {
			log.Fatal(err)
		}
	}
	doc, err := render(run, string(statText), *load, *cmd)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, []byte(doc), 0o644); err != nil {
		log.Fatal(err)
	}
}

// results holds every value of a run: benchmark ("EmitDelta/agui-go") to
// unit to the values of its -count repetitions.
type results struct {
	config map[string]string
	values map[string]map[string][]float64
}

var procSuffix = regexp.MustCompile(`-\d+$`)

func parse(r io.Reader) (*results, error) {
	res := &results{config: map[string]string{}, values: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") && !strings.HasPrefix(k, "Benchmark") {
			res.config[k] = strings.TrimSpace(v)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
			continue
		}
		name := procSuffix.ReplaceAllString(strings.TrimPrefix(fields[0], "Benchmark"), "")
		if res.values[name] == nil {
			res.values[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %w", fields[0], fields[i], err)
			}
			res.values[name][fields[i+1]] = append(res.values[name][fields[i+1]], v)
		}
	}
	return res, sc.Err()
}

// median of the repetitions of name's unit; ok is false when absent.
func (r *results) median(name, unit string) (float64, bool) {
	vs := slices.Clone(r.values[name][unit])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// row is one line of the table: the peer's figure over agui-go's, for the
// CPU-time unit and the wall-time unit.
type row struct {
	what, bench, peer, cpu, wall string
}

// clientReadFrames is the frames of the run BenchmarkClientRead reads
// (1,000 deltas, the message's start and end, RUN_STARTED, RUN_FINISHED):
// its allocs/op are per run.
const clientReadFrames = 1004

var rows = []row{
	{"Emit a text delta into a writer", "EmitDelta", "community", "cpu-ns/op", "ns/op"},
	{"Encode a text delta (JSON alone)", "EncodeDelta", "community", "cpu-ns/op", "ns/op"},
	{"Encode a text delta as an SSE frame", "EncodeFrame", "typescript", "cpu-ns/frame", "ns/frame"},
	{"Loopback run of 1,000 deltas, same neutral client (per delta)", "LoopbackRun1000", "community", "cpu-ns/delta", "ns/delta"},
	{"Client read over loopback HTTP (per frame)", "ClientRead", "community", "cpu-ns/frame", "ns/frame"},
	{"Read pipeline in memory (per frame)", "PipelineRead", "typescript", "cpu-ns/frame", "ns/frame"},
}

func render(r *results, stat, load, cmd string) (string, error) {
	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, "\n## Results\n\nMachine: %s, %s/%s, %s; load average (1, 5, 15 min) %s.\n\n",
		orUnknown(r.config["cpu"]), orUnknown(r.config["goos"]), orUnknown(r.config["goarch"]), cores(), orUnknown(load))
	b.WriteString("A ratio is the peer's median over agui-go's, from the same run: above 1, agui-go does the work in less time.\n\n")
	b.WriteString("| What | Peer | agui-go CPU ns | peer CPU ns | ratio (CPU) | ratio (wall) |\n|---|---|---:|---:|---:|---:|\n")
	for _, w := range rows {
		ours, peer := w.bench+"/agui-go", w.bench+"/"+w.peer
		oc, ok1 := r.median(ours, w.cpu)
		pc, ok2 := r.median(peer, w.cpu)
		ow, ok3 := r.median(ours, w.wall)
		pw, ok4 := r.median(peer, w.wall)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			fmt.Fprintf(&b, "| %s | %s | — | — | not measured | not measured |\n", w.what, w.peer)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %.1f× | %.1f× |\n", w.what, w.peer, oc, pc, pc/oc, pw/ow)
	}
	if ob, ok1 := r.median("IdleRun/agui-go", "bytes/run"); ok1 {
		if pb, ok2 := r.median("IdleRun/community", "bytes/run"); ok2 {
			fmt.Fprintf(&b, "| Memory per idle open run (bytes, not ns) | community | %.0f B | %.0f B | %.2f× | |\n", ob, pb, pb/ob)
		}
	}
	if plain, ok := r.median("LoopbackRun1000/plain", "ns/delta"); ok {
		if ours, ok := r.median("LoopbackRun1000/agui-go", "ns/delta"); ok {
			pc, _ := r.median("LoopbackRun1000/plain", "cpu-ns/delta")
			oc, _ := r.median("LoopbackRun1000/agui-go", "cpu-ns/delta")
			fmt.Fprintf(&b, "\nAgainst a plain `net/http` handler writing the same 1,000 frames one by one: it takes %.0f ns per delta (wall), agui-go's handler %.0f; agui-go runs at %.0f%% of the plain handler's speed (%.0f%% by CPU time).\n",
				plain, ours, 100*plain/ours, 100*pc/oc)
		}
	}
	if wall, ok := r.median("ClientRead/agui-go", "ns/frame"); ok {
		cpu, _ := r.median("ClientRead/agui-go", "cpu-ns/frame")
		allocs, _ := r.median("ClientRead/agui-go", "allocs/op")
		fmt.Fprintf(&b, "\nagui-go's client reads a frame in %.0f ns (wall; %.0f ns of CPU time) and %.2f allocations, the request and the run's setup included.\n",
			wall, cpu, allocs/clientReadFrames)
	}
	if cmd != "" {
		fmt.Fprintf(&b, "\nProduced by:\n\n```\n%s\n```\n", cmd)
	}
	if stat != "" {
		fmt.Fprintf(&b, "\n### Every figure (benchstat)\n\n```\n%s```\n", stat)
	}
	return b.String(), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func cores() string { return fmt.Sprintf("%d logical CPUs", runtime.NumCPU()) }

const header = `# Benchmarks against the peers

<!-- Generated by ` + "`make bench-report`" + ` (bench/report); edit bench/report/main.go, not this file. -->

agui-go measured beside the other AG-UI implementations, on the same
payload (a run of one assistant message streamed as text deltas of
"Hello, world! "), in one ` + "`go test -bench`" + ` run of the [bench](bench/)
module:

- the community Go SDK, ` + "`github.com/ag-ui-protocol/ag-ui/sdks/community/go`" + `,
  pinned in bench/go.mod (it publishes no tags; the pin is its latest
  pseudo-version). It has no HTTP handler: its side is the ` + "`net/http`" + `
  handler its examples write, with its ` + "`SSEWriter`" + `; its client is its SSE
  client, then its ` + "`EventDecoder`" + ` and each event's ` + "`Validate`" + ` (it has no
  stream verifier). Its constructors stamp a timestamp on every event; the
  benchmarks clear it, so that both sides send the same bytes.
- the TypeScript reference 1.0.0 (` + "`@ag-ui/encoder`" + `, ` + "`@ag-ui/client`" + `), from the
  lock file in internal/interop/node, run by bench/typescript_test.go
  through internal/interop/node/peerbench.mjs.

Each benchmark is correct before it is fast: the module's tests assert that
both sides stream the same events (TestRunsAreEquivalent,
TestDeltaFramesAreEqual, TestEncodingsAreEqual), read the same events
(TestClientsReadTheSameEvents), and that the TypeScript encoder writes the
same frame and its pipeline delivers every event
(TestTypeScriptDoesTheSameWork); the benchmarks check the same again as
they run.

## What each row measures

- Emit: agui-go's HTTP handler appending a delta through its helper (the
  verifier, the encoder, the buffered flush) into a writer that drops it;
  the community SDK's ` + "`SSEWriter.WriteEvent`" + ` of a freshly built event (how an
  agent emits with it) into the same writer.
- Encode: a built event to its JSON bytes (agui-go's generated
  ` + "`AppendJSON`" + `; the community ` + "`EventEncoder.EncodeEvent`" + `, which validates and
  marshals). As an SSE frame: agui-go's ` + "`AppendJSON`" + ` and ` + "`sse.AppendFrame`" + `
  beside ` + "`@ag-ui/encoder`" + `'s ` + "`EventEncoder.encode`" + `.
- Loopback run: one POST to a server on 127.0.0.1 and the whole
  1,000-delta answer read by a neutral client (` + "`net/http`" + ` and a line scanner,
  the same for every server). "plain" is the yardstick: a ` + "`net/http`" + `
  handler writing agui-go's frames, one ` + "`Write`" + ` each, and nothing else,
  which net/http sends 4 KiB at a time. It is not a hard limit: agui-go's
  handler hands net/http up to 32 KiB at once, which takes fewer system
  calls, and can be faster than it.
- Client read over loopback: each SDK's client reading the same 1,000-delta
  run (agui-go's ` + "`Client.Run`" + `, verification included; the community SSE
  client, which starts a goroutine for every line it reads, then its decoder
  and ` + "`Validate`" + `) from a server that writes the whole body with one
  ` + "`Write`" + `, so that the figure is the client's work: a server writing the
  frames one by one takes, alone, about as long per frame as agui-go's
  client does.
- Read pipeline in memory: the same run's bytes, no HTTP: agui-go's
  ` + "`sse.Reader`" + ` and ` + "`client.Pipeline`" + `; ` + "`@ag-ui/client`" + `'s ` + "`transformHttpEventStream`" + `,
  ` + "`transformChunks`" + ` and ` + "`verifyEvents`" + `, fed in 16 KiB chunks.
- Idle run: heap and stacks per open run whose agent is waiting after
  RUN_STARTED; a ratio below 1 means agui-go holds more.

The only difference in the bytes the two Go servers send: agui-go's
RUN_STARTED carries ` + "`protocolVersion`" + ` (1.0), which the community SDK cannot send.

## Regenerating

    make bench-report

builds the bench module's test binary and runs it COUNT times (6 unless
given; BENCHTIME=300ms per benchmark), each run the whole list, keeps the
raw output in bench/bench.txt (not tracked), and rewrites this file. To
look at one benchmark:

    cd bench && go test -run '^$' -bench 'ClientRead' -benchmem -count 6 . | tee new.txt
    go run golang.org/x/perf/cmd/benchstat new.txt     # from the repository root

## Reading the noise

- The figures are ratios of medians from one run, never absolute times
  compared across runs or machines.
- The target runs the whole list of benchmarks COUNT times over (not
  ` + "`-count`" + `, which repeats each benchmark in a row), so agui-go and the
  peer of each row alternate through the run: a change in the machine's
  load falls on both sides instead of on one.
- The machine these figures were taken on is shared (its load average is
  given with the results). Waiting for a core inflates wall time, not CPU
  time, so every benchmark also reports the CPU time of the process per op
  (` + "`cpu-ns/op`" + `, ` + "`cpu-ns/frame`" + `, ` + "`cpu-ns/delta`" + `; user plus system, the garbage
  collector and, for loopback runs, the server's goroutines included); the
  CPU ratio is the one to quote under load. For Node the figure is the best
  of five rounds after a JIT warm-up, from ` + "`process.cpuUsage`" + `.
- The Node figures come from one process per benchmark iteration and are
  the noisiest here: V8's compiler and collector threads count in the
  process's CPU time, and a loaded machine stretches them.
- benchstat's ± is the spread of the repetitions; a row whose spread is
  wide, or whose wall and CPU ratios disagree a lot, was taken under
  changing load: run it again, or alone with ` + "`-bench`" + `.
- The idle-run figure is the growth of heap and stacks in use with 100 runs
  open at once, per run, after a warm-up round; it includes the neutral
  client, which is the same on both sides.
`
