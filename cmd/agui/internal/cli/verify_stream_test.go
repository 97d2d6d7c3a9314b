package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/protoframe"
)

// writeLongStream writes a valid run of n events in format to a file: one
// message whose content arrives in n-4 deltas.
func writeLongStream(t *testing.T, format string, n int) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	events := func(yield func(string)) {
		yield(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
		yield(`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`)
		for i := range n - 4 {
			yield(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"word %d "}`, i))
		}
		yield(`{"type":"TEXT_MESSAGE_END","messageId":"m"}`)
		yield(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
	}
	first := true
	var frame []byte
	if format == formatJSONArray {
		w.WriteString("[\n")
	}
	events(func(ev string) {
		switch format {
		case formatSSE:
			w.WriteString("data: " + ev + "\n\n")
		case formatJSONLines:
			w.WriteString(ev + "\n")
		case formatProtobuf:
			ev, err := agui.DecodeEvent([]byte(ev))
			if err == nil {
				frame, err = protoframe.AppendFrame(frame[:0], ev)
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Write(frame)
		case formatJSONArray:
			if !first {
				w.WriteString(",\n")
			}
			w.WriteString(ev)
		}
		first = false
	})
	if format == formatJSONArray {
		w.WriteString("\n]\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return path, st.Size()
}

// heapPeak samples the bytes of live and unswept heap objects until stop is
// called, and returns the highest figure it saw. runtime/metrics reads
// without stopping the world, so sampling often costs little.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// agui verify reads a stream of 10^6 events in every format (protobuf too) in memory that
// does not grow with it: the heap's peak while it runs stays a small fraction
// of the file (the whole file was read into memory before, and more).
func TestVerifyLongStreamInConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and checks four files of 10^6 events")
	}
	n := 1_000_000
	if raceEnabled {
		n = 100_000 // the race detector makes 10^6 take minutes; memory is what is measured
	}
	for _, format := range []string{formatJSONLines, formatSSE, formatJSONArray, formatProtobuf} {
		t.Run(format, func(t *testing.T) {
			path, size := writeLongStream(t, format, n)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			stop := heapPeak()
			var stdout, stderr bytes.Buffer
			code := runVerify(&Env{Stdout: &stdout, Stderr: &stderr}, []string{path})
			peak := stop()
			if code != ExitOK || !strings.Contains(stdout.String(), fmt.Sprintf("valid: %d events", n)) {
				t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
			}
			grew := int64(peak) - int64(before.HeapAlloc)
			t.Logf("%s: %d events, %.1f MB file; heap peak %.1f MB over the %.1f MB before",
				format, n, float64(size)/1e6, float64(grew)/1e6, float64(before.HeapAlloc)/1e6)
			if grew > 24<<20 || (!raceEnabled && grew > size/3) {
				t.Errorf("the heap grew by %d bytes verifying a %d-byte file", grew, size)
			}
		})
	}
}

// Every format has the SSE frame cap per event, and a document nested too
// deeply says so.
func TestVerifyCapsEveryFormat(t *testing.T) {
	huge := `{"type":"RUN_STARTED","threadId":"t","runId":"` + strings.Repeat("x", maxEvent) + `"}`
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	deepEvent := `{"type":"CUSTOM","name":"n","value":` + deep + `}`
	farOver := `{"type":"RUN_STARTED","threadId":"t","runId":"` + strings.Repeat("x", 2*maxEvent) + `"}`
	for _, tc := range []struct {
		name, input, want string
	}{
		{"JSON Lines, huge event", `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + huge + "\n", "JSON value 1: an event is larger than the 10485760-byte limit"},
		{"JSON Lines, far over the cap", farOver + "\n", "JSON value 0: an event is larger than the 10485760-byte limit"},
		{"JSON array, huge event", "[" + huge + "]", "JSON value 0: an event is larger than the 10485760-byte limit"},
		{"SSE, huge event", "data: " + huge + "\n\n", "SSE frame 0: sse: frame exceeds the size limit"},
		{"JSON Lines, too deep", deepEvent + "\n", "JSON value 0: the document is nested too deeply"},
		{"JSON array, too deep", "[" + deepEvent + "]", "not a JSON array of events: the document is nested too deeply"},
		{"SSE, too deep", "data: " + deepEvent + "\n\n", "SSE frame 0: the document is nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runVerify(&Env{Stdin: strings.NewReader(tc.input), Stdout: &stdout, Stderr: &stderr}, nil)
			if code != ExitUsage || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q, want it to hold %q", code, clip([]byte(stderr.String())), tc.want)
			}
		})
	}
}
