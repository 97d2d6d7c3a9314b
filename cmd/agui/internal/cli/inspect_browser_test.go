package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/client"
	"github.com/agui-go/sdk/agui/conversation"
	"github.com/agui-go/sdk/agui/sse"
	"github.com/agui-go/sdk/agui/verify"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumPath finds Debian's chromium. Locally its absence skips the
// browser tests; under CI (CI set) it fails them, as .ci/run installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not found: the browser tests of agui inspect drive Debian's chromium headless (apt-get install -y chromium)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser is one headless chromium tab on the inspector's page, which
// records every console error and uncaught exception.
type browser struct {
	t    *testing.T
	ctx  context.Context
	page string // the inspector's URL
	mu   sync.Mutex
	errs []string
}

func newBrowser(t *testing.T, page string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.WindowSize(1280, 800),
		chromedp.NoSandbox, // the tests may run as root
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	b := &browser{t: t, ctx: ctx, page: page}
	chromedp.ListenTarget(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				msg = "console." + string(e.Type) + ": " + strings.Join(parts, " ")
			}
		case *runtime.EventExceptionThrown:
			msg = "uncaught: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.errs = append(b.errs, msg)
			b.mu.Unlock()
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		cancelTab()
		cancelAlloc()
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	return b
}

// run runs browser actions, failing the test on an error.
func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.shot("failed-" + what)
		b.t.Fatalf("%s: %v", what, err)
	}
}

// noConsoleErrors fails the test for every console error seen so far.
func (b *browser) noConsoleErrors() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errs {
		b.t.Errorf("the page logged an error: %s", e)
	}
	b.errs = nil
}

// shot writes a screenshot of the page to the test's artifact directory.
func (b *browser) shot(name string) {
	b.t.Helper()
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot: %v", err)
		return
	}
	b.t.Logf("screenshot: %s", path)
}

// open loads the page afresh.
func (b *browser) open() {
	b.t.Helper()
	ready := false
	b.run("open the page", chromedp.Navigate(b.page), chromedp.Poll(`window.__inspect && window.__inspect.ready === true`, &ready, chromedp.WithPollingTimeout(30*time.Second)))
}

// runAgainst composes a run with a user message against url and waits
// for the page to have read all of it.
func (b *browser) runAgainst(url, message string) {
	b.t.Helper()
	done := false
	b.run("run against "+url,
		chromedp.SetValue(`#url`, url, chromedp.ByQuery),
		chromedp.SetValue(`#message`, message, chromedp.ByQuery),
		chromedp.Click(`#run`, chromedp.ByQuery),
		chromedp.Poll(`window.__inspect.done === true`, &done, chromedp.WithPollingTimeout(60*time.Second)),
	)
}

// timelineTypes reads the timeline's rows top to bottom, scrolling
// through it (only the rows in view exist), as index → type.
const timelineTypesJS = `(() => {
  const tl = document.getElementById("timeline");
  const seen = new Map();
  for (let top = 0; ; top += tl.clientHeight / 2) {
    tl.scrollTop = top;
    renderTimeline();
    for (const e of tl.querySelectorAll(".ev")) seen.set(Number(e.dataset.index), e.dataset.type);
    if (top > tl.scrollHeight) break;
  }
  tl.scrollTop = 0;
  renderTimeline();
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
})()`

// demoFrameTypes asks the demo directly (no inspector) for a run and
// returns the types of its SSE frames in order.
func demoFrameTypes(t *testing.T, url, message string) []string {
	t.Helper()
	body := fmt.Sprintf(`{"threadId":"t","runId":"r","protocolVersion":"1.1","state":{},"tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u","role":"user","content":%q}]}`, message)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var types []string
	for frame, err := range sse.Frames(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Type string }
		json.Unmarshal(frame, &doc)
		types = append(types, doc.Type)
	}
	return types
}

// exportOf reads the page's current session's export.
func exportOf(t *testing.T, b *browser, api string) [][]byte {
	t.Helper()
	var id string
	b.run("read the session id", chromedp.Evaluate(`view.session`, &id))
	resp, err := http.Get(api + "/api/sessions/" + id + "/export")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

func TestInspectBrowser(t *testing.T) {
	demo := demoURL(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(newInspector(ctx, target{URL: demo}).handler())
	defer srv.Close()
	defer cancel()
	b := newBrowser(t, srv.URL+"/")

	t.Run("tour in order", func(t *testing.T) {
		b.t = t
		b.open()
		b.runAgainst(demo, "weather in Paris?")
		var got []string
		b.run("read the timeline", chromedp.Evaluate(timelineTypesJS, &got))
		want := demoFrameTypes(t, demo, "weather in Paris?")
		if !slices.Equal(got, want) {
			t.Errorf("the timeline shows\n%v\nthe demo streams\n%v", got, want)
		}
		var problemHidden bool
		b.run("problem box", chromedp.Evaluate(`document.getElementById("problem").hidden`, &problemHidden))
		if !problemHidden {
			t.Error("a valid tour shows a problem")
		}
		b.shot("tour")
		b.noConsoleErrors()
	})

	t.Run("state at an event by keyboard", func(t *testing.T) {
		b.t = t
		// Still the tour: step with the keyboard to the STATE_DELTA.
		lines := exportOf(t, b, srv.URL)
		n := slices.IndexFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"STATE_DELTA"`)) })
		if n < 0 {
			t.Fatal("the tour has no STATE_DELTA")
		}
		keys := []chromedp.Action{chromedp.Focus(`#timeline`, chromedp.ByQuery), chromedp.KeyEvent(kb.Home)}
		for range n {
			keys = append(keys, chromedp.KeyEvent(kb.ArrowDown))
		}
		shown := false
		keys = append(keys, chromedp.Poll(fmt.Sprintf(`window.__inspect.detailShown === %d`, n), &shown, chromedp.WithPollingTimeout(30*time.Second)))
		b.run("step to the delta", keys...)
		var state, diff, title string
		var added int
		b.run("read the state", chromedp.Text(`#state-after`, &state, chromedp.ByQuery),
			chromedp.Text(`#detail-title`, &title, chromedp.ByQuery),
			chromedp.Text(`#state-diff`, &diff, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll("#state-diff .add").length`, &added))
		// What agui/conversation computes for the same prefix, here.
		pipe, _ := client.NewPipeline()
		conv := conversation.New([]agui.Message{&agui.UserMessage{ID: "u", Content: agui.TextContent("weather in Paris?")}}, json.RawMessage("{}"))
		for _, l := range lines[:n+1] {
			if err := pipe.Push(l, func(ev agui.Event) bool { conv.Apply(ev); return true }); err != nil {
				t.Fatal(err)
			}
		}
		if want := indentJSON(conv.State()); state != want {
			t.Errorf("the page shows the state after event %d as\n%s\nagui/conversation computes\n%s", n, state, want)
		}
		if !strings.Contains(title, "STATE_DELTA") || added == 0 {
			t.Errorf("title %q, %d added lines in the diff %q", title, added, diff)
		}
		b.shot("state-delta")
		b.noConsoleErrors()
	})

	t.Run("finding on the right event", func(t *testing.T) {
		b.t = t
		b.open()
		b.runAgainst(sseServer(t, breaksRule...), "x")
		shown := false
		var findings string
		var errorRows []int
		b.run("select event 2",
			chromedp.Click(`#ev-2`, chromedp.ByQuery),
			chromedp.Poll(`window.__inspect.detailShown === 2`, &shown, chromedp.WithPollingTimeout(30*time.Second)),
			chromedp.Text(`#findings`, &findings, chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll(".ev.has-error")].map((e) => Number(e.dataset.index))`, &errorRows))
		for _, s := range []string{"not-open", verify.NotOpen.Describe(), "server profile", `message "m2" is not open`} {
			if !strings.Contains(findings, s) {
				t.Errorf("event 2's findings lack %q:\n%s", s, findings)
			}
		}
		if !slices.Equal(errorRows, []int{2}) {
			t.Errorf("rows marked as rejected: %v, want [2]", errorRows)
		}
		b.shot("finding")
		b.noConsoleErrors()
	})

	t.Run("resume form", func(t *testing.T) {
		b.t = t
		b.open()
		b.runAgainst(demo, "interrupt me")
		var outcome, kind string
		resumed := false
		b.run("resume",
			chromedp.WaitVisible(`#resume`, chromedp.ByQuery),
			chromedp.ActionFunc(func(ctx context.Context) error { b.shot("interrupted"); return nil }),
			chromedp.Click(`#resume`, chromedp.ByQuery),
			chromedp.Poll(`window.__inspect.done === true && view.page.kind === "resume"`, &resumed, chromedp.WithPollingTimeout(60*time.Second)),
			chromedp.Evaluate(`view.page.outcome`, &outcome),
			chromedp.Evaluate(`view.page.kind`, &kind))
		if outcome != conversation.Succeeded.String() {
			t.Errorf("the resumed run ended %q, want %q", outcome, conversation.Succeeded.String())
		}
		b.shot("resumed")
		b.noConsoleErrors()
	})

	t.Run("bad input said in words", func(t *testing.T) {
		b.t = t
		bad := badServers(t)
		for _, tt := range []struct{ server, want string }{
			{"unreachable", "cannot reach"},
			{"json", "not an AG-UI stream"},
			{"html", "HTML error page"},
			{"truncated", "a stream must not end inside a run"},
		} {
			b.open()
			b.runAgainst(bad[tt.server], "x")
			var shown string
			b.run("read the message", chromedp.Evaluate(`document.getElementById("problem").hidden ? document.getElementById("end").innerText : document.getElementById("problem").innerText`, &shown))
			if !strings.Contains(shown, tt.want) {
				t.Errorf("%s: the page says %q, want %q", tt.server, shown, tt.want)
			}
			b.shot("bad-" + tt.server)
		}
		// The page's own rejection of a form it cannot send.
		b.open()
		var formErr string
		b.run("bad JSON", chromedp.SetValue(`#state-in`, `{oops`, chromedp.ByQuery), chromedp.Click(`#run`, chromedp.ByQuery),
			chromedp.WaitVisible(`#form-error`, chromedp.ByQuery), chromedp.Text(`#form-error`, &formErr, chromedp.ByQuery))
		if !strings.Contains(formErr, "State is not JSON") {
			t.Errorf("form error %q", formErr)
		}
		b.noConsoleErrors()
	})

	t.Run("10000 events", func(t *testing.T) {
		b.t = t
		docs := []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`}
		for i := range 9996 {
			docs = append(docs, fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"w%d "}`, i))
		}
		docs = append(docs, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
		url := sseServer(t, docs...)
		b.open()
		start := time.Now()
		b.runAgainst(url, "x")
		loaded := time.Since(start)
		var total, rows int
		var maxRender float64
		b.run("count", chromedp.Evaluate(`window.__inspect.total`, &total),
			chromedp.Evaluate(`document.querySelectorAll("#timeline .ev").length`, &rows),
			chromedp.Evaluate(`window.__inspect.maxRenderMs`, &maxRender))
		if total != 10000 {
			t.Fatalf("the page has %d events, want 10000", total)
		}
		if rows >= 200 {
			t.Errorf("%d rows in the DOM for 10000 events: the timeline is not virtualised", rows)
		}
		start = time.Now()
		shown := false
		b.run("jump to the end", chromedp.Focus(`#timeline`, chromedp.ByQuery), chromedp.KeyEvent(kb.End),
			chromedp.Poll(`window.__inspect.detailShown === 9999`, &shown, chromedp.WithPollingTimeout(30*time.Second)))
		jump := time.Since(start)
		var lastRender float64
		var state string
		b.run("read", chromedp.Evaluate(`window.__inspect.renderMs`, &lastRender), chromedp.Text(`#detail-title`, &state, chromedp.ByQuery))
		if !strings.Contains(state, "RUN_FINISHED") {
			t.Errorf("after End the detail shows %q", state)
		}
		t.Logf("10000 events: streamed and shown in %v; slowest timeline render %.1f ms, %d rows in the DOM; End to the last event's detail %v (render %.1f ms)",
			loaded.Round(time.Millisecond), maxRender, rows, jump.Round(time.Millisecond), lastRender)
		b.shot("10000-events")
		b.noConsoleErrors()
	})

	t.Run("narrow window", func(t *testing.T) {
		b.t = t
		b.open()
		b.runAgainst(demo, "hello")
		var overflow bool
		b.run("narrow", chromedp.EmulateViewport(420, 800),
			chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &overflow))
		if overflow {
			t.Error("the page scrolls sideways at 420 px wide")
		}
		b.shot("narrow")
		b.run("wide again", chromedp.EmulateViewport(1280, 800))
		b.noConsoleErrors()
	})

	t.Run("proxy shows an HttpAgent run", func(t *testing.T) {
		b.t = t
		nodeHttpAgent(t) // skips, or under CI fails, without Node and @ag-ui/client
		api, proxy, tap := proxied(t)
		pb := newBrowser(t, api+"/")
		pb.open()
		var status string
		pb.run("proxy status", chromedp.Text(`#status`, &status, chromedp.ByQuery))
		if !strings.Contains(status, "Recording proxy at "+proxy) {
			t.Errorf("status %q", status)
		}
		r := runHttpAgent(t, proxy)
		if r.Rejection != nil {
			t.Fatalf("the HttpAgent: %s", *r.Rejection)
		}
		done := false
		pb.run("the run appears", chromedp.Poll(`window.__inspect.done === true && view.page.kind === "proxy"`, &done, chromedp.WithPollingTimeout(60*time.Second)))
		var got []string
		pb.run("read the timeline", chromedp.Evaluate(timelineTypesJS, &got))
		if !slices.Equal(got, r.Types) {
			t.Errorf("the page shows\n%v\nthe HttpAgent saw\n%v", got, r.Types)
		}
		// What the page shows as the wire is what the agent wrote.
		var wire string
		pb.run("wire of event 0", chromedp.Poll(`window.__inspect.detailShown === 0`, &done, chromedp.WithPollingTimeout(30*time.Second)),
			chromedp.Text(`#wire`, &wire, chromedp.ByQuery))
		if w := strings.TrimSpace(wire); w == "" || !bytes.HasPrefix(tap.last(), []byte(w)) {
			t.Errorf("event 0's wire %q is not how the agent's bytes begin: %q", wire, tap.last()[:min(len(tap.last()), 200)])
		}
		pb.shot("proxy")
		pb.noConsoleErrors()
	})
}
