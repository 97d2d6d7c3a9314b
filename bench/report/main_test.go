package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/agui-go/sdk/bench
cpu: Test CPU
BenchmarkEmitDelta/agui-go-2         	 100	       500 ns/op	       100.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkEmitDelta/community-2       	 100	      5000 ns/op	      2000 cpu-ns/op	     600 B/op	       9 allocs/op
BenchmarkEmitDelta/agui-go-2         	 100	       700 ns/op	       300.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkEmitDelta/community-2       	 100	      7000 ns/op	      4000 cpu-ns/op	     600 B/op	       9 allocs/op
BenchmarkLoopbackRun1000/plain-2     	 10	   500000 ns/op	       400 cpu-ns/delta	      500.0 ns/delta
BenchmarkLoopbackRun1000/agui-go-2   	 10	   625000 ns/op	       500 cpu-ns/delta	      625.0 ns/delta
BenchmarkIdleRun/agui-go-2           	 3	 1 ns/op	     4000 bytes/run
BenchmarkIdleRun/community-2         	 3	 1 ns/op	     2000 bytes/run
PASS
`

func TestRender(t *testing.T) {
	run, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := run.median("EmitDelta/agui-go", "cpu-ns/op"); got != 200 {
		t.Errorf("median %v, want 200", got)
	}
	doc, err := render(run, "", "1.0 2.0 3.0", "make bench-report")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Test CPU, linux/amd64",
		"load average (1, 5, 15 min) 1.0 2.0 3.0",
		// CPU: 3000/200 = 15; wall: 6000/600 = 10.
		"| Emit a text delta into a writer | community | 200 | 3000 | 15.0× | 10.0× |",
		// A row with no figures says so rather than inventing one.
		"| Encode a text delta (JSON alone) | community | — | — | not measured | not measured |",
		"| 4000 B | 2000 B | 0.50× |",
		"agui-go runs at 80% of the plain handler's speed (80% by CPU time)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in:\n%s", want, doc)
		}
	}
}

func TestParseRejectsABadValue(t *testing.T) {
	if _, err := parse(strings.NewReader("BenchmarkX-2 1 abc ns/op\n")); err == nil {
		t.Fatal("no error for a value that is not a number")
	}
}
