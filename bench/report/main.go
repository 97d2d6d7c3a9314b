// Command report turns a run of the bench module's benchmarks into
// BENCHMARKS.md: tables of ratios between agui-go and its peers, and between
// agui-go and the yardsticks that say how far it is from the limit (a
// streaming handler with nothing to encode), each from medians of the same
// run, with the machine and the load it ran under. Given several runs
// (-in repeated), every figure becomes the range of the runs' figures, so
// that a claim measured at one moment on one machine is not published as a
// constant. `make bench-report` runs the benchmarks and then this.
//
// Usage: go run ./report -in bench.txt [-in earlier.txt …] -benchstat stat.txt -load "start end" -out ../BENCHMARKS.md
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
	var ins inputs
	flag.Var(&ins, "in", "go test -bench output; repeat for runs taken at other times (default bench.txt)")
	stat := flag.String("benchstat", "", "benchstat output to include (optional)")
	load := flag.String("load", "", "load averages during the first -in run, when its file does not say")
	cmd := flag.String("cmd", "", "the command that produced the first -in")
	out := flag.String("out", "../BENCHMARKS.md", "where to write")
	flag.Parse()
	if len(ins) == 0 {
		ins = inputs{"bench.txt"}
	}
	var runs []*results
	for _, in := range ins {
		f, err := os.Open(in)
		if err != nil {
			log.Fatal(err)
		}
		run, err := parse(f)
		f.Close()
		if err != nil {
			log.Fatalf("%s: %v", in, err)
		}
		runs = append(runs, run)
	}
	if *load != "" && runs[0].load() == "" {
		runs[0].config["load"] = *load
	}
	var statText []byte
	if *stat != "" {
		var err error
		if statText, err = os.ReadFile(*stat); err != nil {
			log.Fatal(err)
		}
	}
	doc, err := render(runs, string(statText), *cmd)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, []byte(doc), 0o644); err != nil {
		log.Fatal(err)
	}
}

// inputs is the repeated -in flag.
type inputs []string

func (i *inputs) String() string     { return strings.Join(*i, ",") }
func (i *inputs) Set(v string) error { *i = append(*i, v); return nil }

// results holds every value of a run: benchmark ("EmitDelta/agui-go") to
// unit to the values of its -count repetitions, and the run's
// configuration lines (go test's goos, cpu, …; make bench-report adds
// date, ncpu, load-start and load-end).
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

// load is the run's load averages as one phrase, or "" when unknown.
func (r *results) load() string {
	if l := r.config["load"]; l != "" {
		return l
	}
	start, end := r.config["load-start"], r.config["load-end"]
	switch {
	case start != "" && end != "":
		return start + " at the start, " + end + " at the end"
	case start != "":
		return start + " at the start"
	}
	return ""
}

// machine is the sentence that says where and under what load r ran.
func (r *results) machine() string {
	cpus := r.config["ncpu"]
	if cpus == "" {
		cpus = strconv.Itoa(runtime.NumCPU())
	}
	m := fmt.Sprintf("on %s, %s/%s, %s logical CPUs; load average (1, 5, 15 min) %s",
		orUnknown(r.config["cpu"]), orUnknown(r.config["goos"]), orUnknown(r.config["goarch"]), cpus, orUnknown(r.load()))
	if d := r.config["date"]; d != "" {
		return "taken " + d + " " + m
	}
	return m
}

// figure is one number of the report, computed from each run on its own;
// ok is false when the run lacks a value it needs.
type figure func(r *results) (v float64, ok bool)

// span formats f over the runs: its value, or with more than one run the
// range of the runs' values, lowest first (a claim measured once is a
// claim about one moment of one machine). "—" when a run lacks it.
func span(runs []*results, f figure, format string) string {
	var vs []float64
	for _, r := range runs {
		v, ok := f(r)
		if !ok {
			return "—"
		}
		vs = append(vs, v)
	}
	lo, hi := fmt.Sprintf(format, slices.Min(vs)), fmt.Sprintf(format, slices.Max(vs))
	if lo == hi {
		return lo
	}
	// "0.50× speed" and "0.90× speed" make "0.50–0.90× speed".
	loNum, loUnit := splitNumber(lo)
	hiNum, hiUnit := splitNumber(hi)
	if loUnit == hiUnit {
		return loNum + "–" + hiNum + hiUnit
	}
	return lo + "–" + hi
}

// splitNumber cuts a formatted figure after its leading number.
func splitNumber(s string) (number, rest string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && (s[i] == '.' || '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return s[:i], s[i:]
}

// med is the figure of one benchmark's median.
func med(name, unit string) figure {
	return func(r *results) (float64, bool) { return r.median(name, unit) }
}

// ratio is a figure over another, from the same run.
func ratio(num, den figure) figure {
	return func(r *results) (float64, bool) {
		n, ok1 := num(r)
		d, ok2 := den(r)
		if !ok1 || !ok2 || d == 0 {
			return 0, false
		}
		return n / d, true
	}
}

// added is how much a figure exceeds another, from the same run, divided
// by per.
func added(of, base figure, per float64) figure {
	return func(r *results) (float64, bool) {
		a, ok1 := of(r)
		b, ok2 := base(r)
		return (a - b) / per, ok1 && ok2
	}
}

// row is one line of the peers' table: the peer's figure over agui-go's,
// for the CPU-time unit and the wall-time unit.
type row struct {
	what, bench, peer, cpu, wall string
}

// runFrames is the frames of the runs the client and durable benchmarks
// stream (1,000 deltas, the message's start and end, RUN_STARTED,
// RUN_FINISHED): their allocs/op and B/op are per run.
const (
	runDeltas = 1000
	runFrames = runDeltas + 4
)

var rows = []row{
	{"Emit a text delta into a writer", "EmitDelta", "community", "cpu-ns/op", "ns/op"},
	{"Emit an escape-heavy text delta into a writer", "EmitEscapedDelta", "community", "cpu-ns/op", "ns/op"},
	{"Encode a text delta (JSON alone)", "EncodeDelta", "community", "cpu-ns/op", "ns/op"},
	{"Encode a text delta as an SSE frame", "EncodeFrame", "typescript", "cpu-ns/frame", "ns/frame"},
	{"Loopback run of 1,000 deltas, same neutral client (per delta)", "LoopbackRun1000", "community", "cpu-ns/delta", "ns/delta"},
	{"Client read over loopback HTTP, whole body (per frame)", "ClientRead", "community", "cpu-ns/frame", "ns/frame"},
	{"Client read, frame-by-frame server (per frame)", "ClientReadFrames", "community", "cpu-ns/frame", "ns/frame"},
	{"Client read, escape-heavy deltas (per frame)", "ClientReadEscaped", "community", "cpu-ns/frame", "ns/frame"},
	{"Read pipeline in memory (per frame)", "PipelineRead", "typescript", "cpu-ns/frame", "ns/frame"},
}

// yardstick is one line of the yardsticks' table: agui-go beside a
// baseline that is not a peer, with the goal issue 22 set for it.
type yardstick struct {
	what, baseline string
	ours, base     figure // shown in the agui-go and baseline columns
	fig            figure // the figure the goal is about
	unit, format   string // of ours and base; of fig
	goal           string
}

const (
	loopCPU   = "cpu-ns/delta"
	frameCPU  = "cpu-ns/frame"
	noFlush   = "plain-noflush: the same frames written one by one, never flushed (net/http sends them 4 KiB at a time: not a streaming server)"
	flushEach = "plain-flush: the same frames, encoded beforehand, each written and flushed"
	pieces    = "plain-pieces: the same frames, encoded beforehand, in 32 KiB pieces (as large as agui-go's writes), each flushed: the bytes and system calls alone"
)

// speed is a baseline's CPU time over agui-go's: above 1, agui-go is faster.
func speed(ours, base string, unit string) figure { return ratio(med(base, unit), med(ours, unit)) }

// cost is agui-go's CPU time in one case over another: above 1, the case
// costs more.
func cost(ours, base string, unit string) figure { return ratio(med(ours, unit), med(base, unit)) }

var yardsticks = []yardstick{
	{"Unpaced loopback run of 1,000 deltas (CPU per delta)", pieces,
		med("LoopbackRun1000/agui-go", loopCPU), med("LoopbackRun1000/plain-pieces", loopCPU),
		speed("LoopbackRun1000/agui-go", "LoopbackRun1000/plain-pieces", loopCPU), "ns", "%.2f× speed", "≥ 0.9× speed"},
	{"Unpaced loopback run of 1,000 deltas (CPU per delta)", flushEach,
		med("LoopbackRun1000/agui-go", loopCPU), med("LoopbackRun1000/plain-flush", loopCPU),
		speed("LoopbackRun1000/agui-go", "LoopbackRun1000/plain-flush", loopCPU), "ns", "%.2f× speed", "—"},
	{"Unpaced loopback run of 1,000 deltas (CPU per delta)", noFlush,
		med("LoopbackRun1000/agui-go", loopCPU), med("LoopbackRun1000/plain-noflush", loopCPU),
		speed("LoopbackRun1000/agui-go", "LoopbackRun1000/plain-noflush", loopCPU), "ns", "%.2f× speed", "—"},
	{"Emit a text delta (CPU)", "the community SDK's SSEWriter, timestamps cleared",
		med("EmitDelta/agui-go", "cpu-ns/op"), med("EmitDelta/community", "cpu-ns/op"),
		speed("EmitDelta/agui-go", "EmitDelta/community", "cpu-ns/op"), "ns", "%.1f× speed", "≥ 25× speed"},
	{"Emit an escape-heavy text delta (CPU)", "agui-go emitting the plain delta (EmitDelta)",
		med("EmitEscapedDelta/agui-go", "cpu-ns/op"), med("EmitDelta/agui-go", "cpu-ns/op"),
		cost("EmitEscapedDelta/agui-go", "EmitDelta/agui-go", "cpu-ns/op"), "ns", "%.2f× cost", "—"},
	{"Client read, frame-by-frame server: CPU per frame, the server's included", "agui-go's client on the whole-body server (ClientRead), its best case",
		med("ClientReadFrames/agui-go", frameCPU), med("ClientRead/agui-go", frameCPU),
		cost("ClientReadFrames/agui-go", "ClientRead/agui-go", frameCPU), "ns", "%.2f× cost", "—"},
	{"Neutral reader, frame-by-frame server: CPU per frame, the server's included", "the neutral reader on the whole-body server: what any client pays for frames one at a time",
		med("ClientReadFrames/neutral", frameCPU), med("ClientRead/neutral", frameCPU),
		cost("ClientReadFrames/neutral", "ClientRead/neutral", frameCPU), "ns", "%.2f× cost", "—"},
	{"Client read, escape-heavy deltas: CPU per frame, the server's included", "agui-go's client reading the plain deltas (ClientRead), its best case",
		med("ClientReadEscaped/agui-go", frameCPU), med("ClientRead/agui-go", frameCPU),
		cost("ClientReadEscaped/agui-go", "ClientRead/agui-go", frameCPU), "ns", "%.2f× cost", "—"},
	{"Client read in memory (no socket, no server), one frame per read: CPU per frame", memBest,
		med("ClientReadMemory/frames/agui-go", frameCPU), med("ClientReadMemory/body/agui-go", frameCPU),
		cost("ClientReadMemory/frames/agui-go", "ClientReadMemory/body/agui-go", frameCPU), "ns", "%.2f× cost", "≤ 1.3× cost"},
	{"Client read in memory, escape-heavy deltas: CPU per frame", memBest,
		med("ClientReadMemory/escaped/agui-go", frameCPU), med("ClientReadMemory/body/agui-go", frameCPU),
		cost("ClientReadMemory/escaped/agui-go", "ClientReadMemory/body/agui-go", frameCPU), "ns", "%.2f× cost", "≤ 1.3× cost"},
	{"Durable run on the memory log, its POST reading it: CPU per event, 1,000-delta runs (a run's own costs spread over its deltas)", durableOff,
		med("DurableEmit1000/memorylog", loopCPU), med("DurableEmit1000/off", loopCPU),
		added(med("DurableEmit1000/memorylog", loopCPU), med("DurableEmit1000/off", loopCPU), 1), "ns", "%+.0f ns", "≤ +50 ns"},
	{"Durable run: CPU per event, marginal (runs of 1,000 less runs of 100, over 900 deltas)", durableOff,
		marginal("DurableEmit", "memorylog", loopCPU), marginal("DurableEmit", "off", loopCPU),
		added(marginal("DurableEmit", "memorylog", loopCPU), marginal("DurableEmit", "off", loopCPU), 1), "ns", "%+.0f ns", "≤ +50 ns"},
	{"Durable run: allocations per event, marginal", durableOff,
		marginal("DurableEmit", "memorylog", "allocs/op"), marginal("DurableEmit", "off", "allocs/op"),
		added(marginal("DurableEmit", "memorylog", "allocs/op"), marginal("DurableEmit", "off", "allocs/op"), 1), "", "%+.3f", "+0"},
	{"Durable run: bytes allocated per event, marginal", durableOff,
		marginal("DurableEmit", "memorylog", "B/op"), marginal("DurableEmit", "off", "B/op"),
		added(marginal("DurableEmit", "memorylog", "B/op"), marginal("DurableEmit", "off", "B/op"), 1), "B", "%+.0f B", "—"},
	{"Memory per idle open run", "the community SDK's handler, the same neutral client",
		med("IdleRun/agui-go", "bytes/run"), med("IdleRun/community", "bytes/run"),
		ratio(med("IdleRun/agui-go", "bytes/run"), med("IdleRun/community", "bytes/run")), "B", "%.2f× the bytes", "≤ 1×"},
}

// memBest is the baseline of the in-memory client rows.
const memBest = "agui-go's client reading the plain run's whole body in memory (ClientReadMemory/body), its best case"

const durableOff = "the same runs with durable runs off"

// The two run lengths of the durable benchmarks (DurableEmit1000,
// DurableEmit100).
const durableLong, durableShort = runDeltas, 100

// perRunOf is side's figure of unit per run of deltas deltas, from the
// DurableEmit benchmark of that length (whose per-delta units are
// multiplied back).
func perRunOf(bench, side, unit string, deltas int) figure {
	return func(r *results) (float64, bool) {
		v, ok := r.median(bench+strconv.Itoa(deltas)+"/"+side, unit)
		if strings.HasSuffix(unit, "/delta") {
			v *= float64(deltas)
		}
		return v, ok
	}
}

// marginal is what one more delta costs side: the growth of the per-run
// figure from the short runs to the long ones, over the deltas between
// them. What a run costs once cancels out.
func marginal(bench, side, unit string) figure {
	return added(perRunOf(bench, side, unit, durableLong), perRunOf(bench, side, unit, durableShort), durableLong-durableShort)
}

// once is what a run costs side whatever its length: the per-run figure
// of the short runs less their deltas' marginal cost.
func once(bench, side, unit string) figure {
	return func(r *results) (float64, bool) {
		short, ok1 := perRunOf(bench, side, unit, durableShort)(r)
		m, ok2 := marginal(bench, side, unit)(r)
		return short - durableShort*m, ok1 && ok2
	}
}

// The paced latency rows: every pace and number of streams
// BenchmarkPacedLatency runs.
var (
	paces   = []string{"1ms", "10ms"}
	streams = []string{"1", "100", "1000"}
)

func render(runs []*results, stat, cmd string) (string, error) {
	if len(runs) == 0 {
		return "", fmt.Errorf("no runs")
	}
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("\n## Results\n\n")
	if len(runs) == 1 {
		fmt.Fprintf(&b, "One run, %s.\n\n", runs[0].machine())
		b.WriteString("Each figure is that run's: a claim that holds only on this machine needs a second run, far apart in time, before it is published (see Regenerating).\n\n")
	} else {
		fmt.Fprintf(&b, "%d runs, each figure given as the range of the runs' figures (one value when they agree):\n\n", len(runs))
		for i, r := range runs {
			fmt.Fprintf(&b, "%d. Run %s.\n", i+1, r.machine())
		}
		b.WriteString("\n")
	}

	b.WriteString("### Against the peers\n\n")
	b.WriteString("A ratio is the peer's median over agui-go's, from the same run: above 1, agui-go does the work in less time.\n\n")
	b.WriteString("| What | Peer | agui-go CPU ns | peer CPU ns | ratio (CPU) | ratio (wall) |\n|---|---|---:|---:|---:|---:|\n")
	for _, w := range rows {
		ours, peer := w.bench+"/agui-go", w.bench+"/"+w.peer
		cpu := span(runs, ratio(med(peer, w.cpu), med(ours, w.cpu)), "%.1f×")
		wall := span(runs, ratio(med(peer, w.wall), med(ours, w.wall)), "%.1f×")
		if cpu == "—" || wall == "—" {
			fmt.Fprintf(&b, "| %s | %s | — | — | not measured | not measured |\n", w.what, w.peer)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", w.what, w.peer,
			span(runs, med(ours, w.cpu), "%.0f"), span(runs, med(peer, w.cpu), "%.0f"), cpu, wall)
	}
	if f := span(runs, ratio(med("IdleRun/community", "bytes/run"), med("IdleRun/agui-go", "bytes/run")), "%.2f×"); f != "—" {
		fmt.Fprintf(&b, "| Memory per idle open run (bytes, not ns) | community | %s B | %s B | %s | |\n",
			span(runs, med("IdleRun/agui-go", "bytes/run"), "%.0f"), span(runs, med("IdleRun/community", "bytes/run"), "%.0f"), f)
	}
	if wall := span(runs, med("ClientRead/agui-go", "ns/frame"), "%.0f"); wall != "—" {
		fmt.Fprintf(&b, "\nagui-go's client reads a frame of the whole-body server in %s ns (wall; %s ns of CPU time) and %s allocations, the request and the run's setup included.\n",
			wall, span(runs, med("ClientRead/agui-go", "cpu-ns/frame"), "%.0f"),
			span(runs, func(r *results) (float64, bool) {
				v, ok := r.median("ClientRead/agui-go", "allocs/op")
				return v / runFrames, ok
			}, "%.2f"))
	}

	b.WriteString("\n### Yardsticks\n\n")
	b.WriteString("agui-go against baselines that are not peers, each from the same run, with the goals of issue 22. " +
		"\"speed\" is the baseline's CPU time over agui-go's (above 1, agui-go is faster); " +
		"\"cost\" is agui-go's CPU time in the case over the baseline's (above 1, the case costs more); " +
		"\"+\" figures are what agui-go adds to the baseline per event.\n\n")
	b.WriteString("| What | Baseline | agui-go | baseline | figure | goal |\n|---|---|---:|---:|---:|---:|\n")
	for _, y := range yardsticks {
		unit := ""
		if y.unit != "" {
			unit = " " + y.unit
		}
		ours, base, fig := span(runs, y.ours, "%.0f"), span(runs, y.base, "%.0f"), span(runs, y.fig, y.format)
		if y.unit == "" {
			ours, base = span(runs, y.ours, "%.3f"), span(runs, y.base, "%.3f")
		}
		if fig == "—" {
			fmt.Fprintf(&b, "| %s | %s | — | — | not measured | %s |\n", y.what, y.baseline, y.goal)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s%s | %s%s | %s | %s |\n", y.what, y.baseline, ours, unit, base, unit, fig, y.goal)
	}

	if allocs := span(runs, added(once("DurableEmit", "memorylog", "allocs/op"), once("DurableEmit", "off", "allocs/op"), 1), "%+.0f"); allocs != "—" {
		fmt.Fprintf(&b, "\nOnce per run, whatever its length, a durable run adds %s allocations and %s B (the per-run figures of the runs of 100 less their deltas' marginal cost).\n",
			allocs, span(runs, added(once("DurableEmit", "memorylog", "B/op"), once("DurableEmit", "off", "B/op"), 1), "%+.0f"))
	}

	b.WriteString("\n### Latency, emit to the client's read\n\n")
	b.WriteString("A delta every pace on each of the streams at once, over loopback, read by the neutral client. " +
		"Baseline: plain-flush, a `net/http` handler that writes and flushes each frame (encoded beforehand) the moment it is emitted and does nothing else. " +
		"The ratios are agui-go's percentile over the baseline's, from the same run: below 1, agui-go's deltas arrive sooner. " +
		"Goal: p50 and p99 each ≤ 1.2×. late is the share of emits that began more than a pace after their slot (agui-go / baseline): " +
		"where it is not near 0 the machine did not keep the pace, and the row measures a backlog.\n\n")
	b.WriteString("| Pace | Streams | p50 agui-go µs | p50 baseline µs | p50 ratio | p99 agui-go µs | p99 baseline µs | p99 ratio | late % |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, pace := range paces {
		for _, n := range streams {
			name := "PacedLatency/pace=" + pace + "/streams=" + n + "/"
			ours, base := name+"agui-go", name+"plain-flush"
			p50 := span(runs, ratio(med(ours, "p50-µs"), med(base, "p50-µs")), "%.2f×")
			p99 := span(runs, ratio(med(ours, "p99-µs"), med(base, "p99-µs")), "%.2f×")
			if p50 == "—" || p99 == "—" {
				fmt.Fprintf(&b, "| %s | %s | — | — | not measured | — | — | not measured | — |\n", pace, n)
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", pace, n,
				span(runs, med(ours, "p50-µs"), "%.0f"), span(runs, med(base, "p50-µs"), "%.0f"), p50,
				span(runs, med(ours, "p99-µs"), "%.0f"), span(runs, med(base, "p99-µs"), "%.0f"), p99,
				span(runs, med(ours, "late-%"), "%.1f"), span(runs, med(base, "late-%"), "%.1f"))
		}
	}

	if cmd != "" {
		fmt.Fprintf(&b, "\nProduced by:\n\n```\n%s\n```\n", cmd)
	}
	if stat != "" {
		label := "Every figure (benchstat)"
		if len(runs) > 1 {
			label = "Every figure of the first run (benchstat)"
		}
		fmt.Fprintf(&b, "\n### %s\n\n```\n%s```\n", label, stat)
	}
	return b.String(), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

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
both sides stream the same events, the escape-heavy ones included
(TestRunsAreEquivalent, TestEscapedRunsAreEquivalent,
TestDeltaFramesAreEqual, TestEncodingsAreEqual), read the same events
(TestClientsReadTheSameEvents), that every yardstick server sends
agui-go's body byte for byte (TestYardsticksSendOursBytes) and the
in-memory transport the run in the pieces asked for
(TestMemTransportDeliversTheRun), that a paced
round delivers every delta after its emit (TestPacedRoundsReadEveryDelta),
that both durable sides stream the whole run, the durable one with its
sequence numbers (TestDurableSidesStreamTheRun), and that the TypeScript
encoder writes the same frame and its pipeline delivers every event
(TestTypeScriptDoesTheSameWork); the benchmarks check the same again as
they run (events counted, bytes compared).

## What each row measures

- Emit: agui-go's HTTP handler appending a delta through its helper (the
  verifier, the encoder, the buffered flush) into a writer that drops it;
  the community SDK's ` + "`SSEWriter.WriteEvent`" + ` of a freshly built event (how an
  agent emits with it) into the same writer.
- Encode: a built event to its JSON bytes (agui-go's generated
  ` + "`AppendJSON`" + `; the community ` + "`EventEncoder.EncodeEvent`" + `, which validates and
  marshals). As an SSE frame: agui-go's ` + "`AppendJSON`" + ` and ` + "`sse.AppendFrame`" + `
  beside ` + "`@ag-ui/encoder`" + `'s ` + "`EventEncoder.encode`" + `.
- Emit, escape-heavy: the same with a delta full of what JSON escapes or
  checks (quotes, backslashes, a line break, a tab) and multi-byte UTF-8,
  as a model writing code or another script streams it (no ` + "`<`, `>`, `&`" + `,
  which the community encoder escapes for HTML and agui-go does not).
- Loopback run: one POST to a server on 127.0.0.1 and the whole
  1,000-delta answer read by a neutral client (` + "`net/http`" + ` and a line scanner,
  the same for every server), unpaced: the agent emits as fast as it can.
  Beside the peer, three yardsticks, ` + "`net/http`" + ` handlers writing agui-go's own
  frames, encoded beforehand, and nothing else: "plain-noflush" writes them
  one by one and never flushes, so net/http sends them 4 KiB at a time (not
  a streaming server: a client sees nothing of a slow stream until 4 KiB
  have built up); "plain-flush" writes and flushes each, the honest
  streaming baseline; "plain-pieces" writes them in 32 KiB pieces, as large
  as the ones agui-go's handler hands net/http, flushing each, which is the
  cost of the bytes and the system calls alone: the limit for a server
  that gathers frames.
- Paced latency: an agent emitting a delta every 1 ms or every 10 ms on 1,
  100 or 1,000 streams at once (their emits spread over the pace), each
  delta timed from the agent's emit call to the return of the neutral
  client's read that delivered it; p50 and p99 over every delta of the
  rounds. The baseline writes and flushes each frame, encoded beforehand,
  the moment it is emitted: as early as a server can be. A round is a
  fixed number of deltas per stream (a second's worth, at most 20,000 in
  all), after a warm-up round that opens the connections.
- Client read over loopback: each SDK's client reading the same 1,000-delta
  run (agui-go's ` + "`Client.Run`" + `, verification included; the community SSE
  client, which starts a goroutine for every line it reads, then its decoder
  and ` + "`Validate`" + `), beside the neutral reader, from three servers: one that
  writes the whole body with one ` + "`Write`" + `, the best case, where the figure is
  the client's work; one that writes and flushes every frame, as a
  streaming server does when events come one at a time, so that each read
  returns a frame; and the whole body again with escape-heavy deltas. The
  server shares the process, so its CPU time is in the figures: the
  neutral reader's figures say how much of a difference between servers any
  client pays. From a server that flushes every frame that is most of it,
  and unsteady: each frame is a system call on both ends and a wake-up of
  the reader, whose cost depends on how the goroutines meet on the cores.
- Client read in memory: agui-go's client and the neutral reader reading
  the same runs through an ` + "`http.RoundTripper`" + ` that answers from memory,
  handing over the body whole, one frame per ` + "`Read`" + ` (what a socket gives a
  client of a server that flushes every frame), or whole with escape-heavy
  deltas: the client's own work, without the socket's and the server's.
  The client goals (frames one at a time, escapes) are about these rows.
- Read pipeline in memory: the same run's bytes, no HTTP: agui-go's
  ` + "`sse.Reader`" + ` and ` + "`client.Pipeline`" + `; ` + "`@ag-ui/client`" + `'s ` + "`transformHttpEventStream`" + `,
  ` + "`transformChunks`" + ` and ` + "`verifyEvents`" + `, fed in 16 KiB chunks.
- Durable runs: whole runs of 1,000 and of 100 deltas through agui-go's
  handler into a writer that drops the bytes, with durable runs on the
  memory run log (keeping 8 ended runs: a full log's steady state) and off.
  With them on, the POST's stream is a reader of the run in the log, so
  the figures count the log's writer and its reader. Per delta of the
  1,000-delta runs, what a run costs once is spread over its deltas; the
  marginal figures (the growth from 100 to 1,000 deltas, over 900) are what
  one more event costs, and the rest is what a run costs once.
- Idle run: heap and stacks per open run whose agent is waiting after
  RUN_STARTED; a ratio below 1 means agui-go holds more.

The only difference in the bytes the two Go servers send: agui-go's
RUN_STARTED carries ` + "`protocolVersion`" + ` (1.0), which the community SDK cannot send.

## Regenerating

    make bench-report

builds the bench module's test binary and runs it COUNT times (6 unless
given; BENCHTIME=300ms per benchmark), each run the whole list, keeps the
raw output in bench/bench.txt (not tracked, with the date, the number of
CPUs and the load averages in it), and rewrites this file. A figure that
holds on one machine at one moment is not yet a claim: keep the raw output
of a run (copy bench/bench.txt aside) and pass it to a later one, far apart
in time,

    make bench-report EARLIER=bench/runs/2026-07-01.txt

and every figure is written as the range of the runs' figures. To look at
one benchmark:

    cd bench && go test -run '^$' -bench 'ClientRead' -benchmem -count 6 . | tee new.txt
    go tool benchstat new.txt                          # benchstat is the bench module's tool

## Reading the noise

- The figures are ratios of medians from one run, never absolute times
  compared across runs or machines; given several runs, a figure is the
  range of the runs' own ratios.
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
- The paced rows are the most sensitive to other work on the machine: a
  delta waits for a core on the server's side and on the client's, and a
  time.Sleep that overshoots makes an emit late. Their late column says
  when the pace was not kept; with 1,000 streams on two cores it usually is
  not, and those rows measure how each server drains a backlog. With one
  stream at 10 ms a round has 100 deltas, so its p99 is the second slowest.
  A collection is forced between rounds, so that one that still falls in a
  round has only that round's garbage to collect.
`
