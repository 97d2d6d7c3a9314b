package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/agui-go/sdk/agui/server/demo"
	"github.com/agui-go/sdk/agui/server/threads"
)

// startCopilotKitDemo runs `agui demo --copilotkit --addr 127.0.0.1:0`
// (and extra args) in process, with the demo's slow answer long enough
// that only a stop ends it, and returns the page's base URL (no trailing
// slash), and stop, which stops it (and fails the test unless it exits 0);
// the test's cleanup calls stop too. Several may run at once.
func startCopilotKitDemo(t *testing.T, args ...string) (base string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Both are read before the banner is printed, and put back once it is.
	saved, savedCfg := demoContext, copilotKitDemo
	demoContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	copilotKitDemo = demo.Config{SlowDelay: 100 * time.Millisecond, SlowWords: 100000}
	defer func() { demoContext, copilotKitDemo = saved, savedCfg }()
	out, w := io.Pipe()
	stderr := &syncBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- runDemo(&Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: stderr}, append([]string{"--copilotkit", "--addr", "127.0.0.1:0"}, args...))
		w.Close()
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if c := <-code; c != ExitOK {
				t.Errorf("agui demo --copilotkit exited %d; stderr: %s", c, stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("no output; stderr: %s", stderr.String())
	}
	base = regexp.MustCompile(`http://\S+/`).FindString(lines.Text())
	if !strings.HasPrefix(lines.Text(), "CopilotKit chat page: ") || base == "" {
		t.Fatalf("first line %q does not name the page", lines.Text())
	}
	go io.Copy(io.Discard, out) // the rest of the banner
	return strings.TrimSuffix(base, "/"), stop
}

// demoThread is what GET /agent/threads/{id} answers, the parts read here.
type demoThread struct {
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	LiveRunID  string            `json:"liveRunId"`
	Runs       []threads.Run     `json:"runs"` // the newest first
	Interrupts []json.RawMessage `json:"interrupts"`
}

func readThread(t *testing.T, base, thread string) demoThread {
	t.Helper()
	resp, err := http.Get(base + "/agent/threads/" + url.PathEscape(thread))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var th demoThread
	if resp.StatusCode == http.StatusNotFound {
		return th
	}
	if err := json.NewDecoder(resp.Body).Decode(&th); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET thread %s: status %d, %v", thread, resp.StatusCode, err)
	}
	return th
}

// waitThread polls the thread until ok says yes (a hang guard of a minute).
func waitThread(t *testing.T, base, thread, what string, ok func(demoThread) bool) demoThread {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		th := readThread(t, base, thread)
		if ok(th) {
			return th
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %s: %s did not happen; it is %+v", thread, what, th)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// chatPage is one tab on the demo's CopilotKit page; it records every
// request the page makes to another origin (it must make none).
type chatPage struct {
	*browser
	query   string // added to the page's address: "&transport=single"
	origin  string
	mu      sync.Mutex
	foreign []string
	runtime []string // "METHOD path" of each request to the runtime
}

func newChatPage(t *testing.T, base string) *chatPage {
	t.Helper()
	p := &chatPage{browser: newBrowser(t, base+"/"), origin: base}
	chromedp.ListenTarget(p.ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			p.mu.Lock()
			defer p.mu.Unlock()
			u := e.Request.URL
			switch path, ok := strings.CutPrefix(u, p.origin); {
			case ok && strings.HasPrefix(path, copilotKitRuntimePath):
				p.runtime = append(p.runtime, e.Request.Method+" "+path)
			case ok && strings.HasPrefix(path, "/"), strings.HasPrefix(u, "data:"), strings.HasPrefix(u, "blob:"):
			default:
				p.foreign = append(p.foreign, u)
			}
		}
	})
	p.run("enable the network domain", network.Enable())
	return p
}

// checks fails the test for console errors and foreign requests so far.
func (p *chatPage) checks() {
	p.t.Helper()
	p.noConsoleErrors()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range p.foreign {
		p.t.Errorf("the page requested %s, off the demo's origin", u)
	}
	p.foreign = nil
}

// The page's parts, by the test ids CopilotKit's components carry.
const (
	chatInput  = `[data-testid="copilot-chat-textarea"]`
	chatButton = `[data-testid="copilot-send-button"]`
)

// chatTextJS is the text of the page's messages of one role, in order.
func chatTextJS(testid string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('[data-testid=%q]')].map((e) => e.innerText.trim())`, testid)
}

// openThread loads the page on a thread and waits for its chat to be
// ready to type into.
func (p *chatPage) openThread(thread string) {
	p.t.Helper()
	p.mu.Lock()
	origin := p.origin
	p.mu.Unlock()
	p.run("open the page", chromedp.Navigate(origin+"/?thread="+url.QueryEscape(thread)+p.query), chromedp.WaitVisible(chatInput, chromedp.ByQuery))
}

// runtimeRequests returns the requests to the runtime since the last call.
func (p *chatPage) runtimeRequests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.runtime
	p.runtime = nil
	return r
}

// moveTo makes base the page's origin: the next openThread loads the page
// from there, and every later request elsewhere is foreign.
func (p *chatPage) moveTo(base string) {
	p.mu.Lock()
	p.origin = base
	p.mu.Unlock()
}

// shot scrolls the chat to its end (the messages scroll inside the
// page) and writes a screenshot of the window to the test's artifact
// directory.
func (p *chatPage) shot(name string) {
	p.t.Helper()
	var png []byte
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	err := chromedp.Run(ctx,
		chromedp.Evaluate(`for (const e of document.querySelectorAll("*")) if (e.scrollHeight > e.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(e).overflowY)) e.scrollTop = e.scrollHeight`, nil),
		chromedp.Poll(`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.CaptureScreenshot(&png))
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(p.t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Errorf("screenshot: %v", err)
		return
	}
	p.t.Logf("screenshot: %s", path)
}

// send types a message and sends it.
func (p *chatPage) send(text string) {
	p.t.Helper()
	p.run("send "+text, chromedp.Click(chatInput, chromedp.ByQuery), chromedp.SendKeys(chatInput, text, chromedp.ByQuery),
		chromedp.Click(chatButton, chromedp.ByQuery))
}

// waitText waits until the page's messages of a role (a test id) satisfy
// the JavaScript predicate on their texts, texts.
func (p *chatPage) waitText(what, testid, predicate string) []string {
	p.t.Helper()
	ok := false
	var texts []string
	p.run(what, chromedp.Poll(fmt.Sprintf(`((texts) => %s)(%s)`, predicate, chatTextJS(testid)), &ok, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Evaluate(chatTextJS(testid), &texts))
	return texts
}

const (
	userMessages      = "copilot-user-message"
	assistantMessages = "copilot-assistant-message"
	tourReply         = "It will be sunny in Paris, up to 24 °C."
)

// TestCopilotKitPageBrowser drives the page of `agui demo --copilotkit` in
// headless chromium, with the client's own choice of the runtime's route
// form and with the single-route form: a message gets its streamed reply,
// a reload shows the thread's history, and the stop button stops a slow
// run (on the server: the run ends cancelled, and the page keeps what was
// streamed); an interrupt is shown with its question, and approving or
// declining it resumes the run with that answer.
func TestCopilotKitPageBrowser(t *testing.T) {
	base, _ := startCopilotKitDemo(t)
	for _, tc := range []struct {
		name, query string
		runs        string // the request that runs the agent
		never       string // in no request's path
	}{
		{"auto", "", "POST " + copilotKitRuntimePath + "/agent/" + copilotKitAgentID + "/run", ""},
		{"single", "&transport=single", "POST " + copilotKitRuntimePath, "/agent/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newChatPage(t, base)
			p.query = tc.query
			testCopilotKitPage(t, p, base, "ck-browser-"+tc.name, tc.runs, tc.never)
		})
	}
}

func testCopilotKitPage(t *testing.T, p *chatPage, base, thread, runs, never string) {

	p.openThread(thread)
	p.shot(thread + "-empty")
	p.send("hello")
	p.waitText("the reply", assistantMessages, fmt.Sprintf(`texts.some((s) => s.includes(%q))`, tourReply))
	p.shot(thread + "-reply")
	th := waitThread(t, base, thread, "the run recorded", func(th demoThread) bool {
		return len(th.Runs) == 1 && th.Runs[0].Outcome == threads.OutcomeSucceeded
	})
	reqs := p.runtimeRequests()
	if !slices.Contains(reqs, runs) || (never != "" && slices.ContainsFunc(reqs, func(r string) bool { return strings.Contains(r, never) })) {
		t.Errorf("the page asked the runtime %q; want %q among them (and no path with %q)", reqs, runs, never)
	}
	t.Logf("the page's requests to the runtime: %q", reqs)
	p.checks()

	// The reload: a new page on the same thread connects and is shown
	// the history the runtime keeps.
	p.openThread(thread)
	users := p.waitText("the history's question", userMessages, `texts.length === 1`)
	replies := p.waitText("the history's reply", assistantMessages, fmt.Sprintf(`texts.some((s) => s.includes(%q))`, tourReply))
	if users[0] != "hello" {
		t.Errorf("after the reload the question is %q, want hello", users[0])
	}
	p.shot(thread + "-history")
	p.checks()

	// Stop: a slow run streams until the stop button ends it.
	p.send("slow, please")
	streaming := p.waitText("the slow reply streaming", assistantMessages, `texts.length > 0 && /word3 /.test(texts[texts.length - 1] + " ")`)
	p.shot(thread + "-streaming")
	th = waitThread(t, base, thread, "the slow run live", func(th demoThread) bool { return th.LiveRunID != "" })
	live := th.LiveRunID
	stoppable := false
	p.run("press stop", chromedp.Poll(fmt.Sprintf(`!!document.querySelector('%s svg.lucide-square')`, chatButton), &stoppable, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Click(chatButton, chromedp.ByQuery))
	th = waitThread(t, base, thread, "the slow run stopped", func(th demoThread) bool {
		return th.LiveRunID == "" && len(th.Runs) == 2
	})
	// A run cancelled by request ends in RUN_ERROR CANCELLED (a message
	// was open), which the thread records as cancelled, with that code.
	if r := th.Runs[0]; r.RunID != live || r.Outcome != threads.OutcomeCancelled {
		t.Errorf("the slow run %s ended as %+v, want it cancelled", live, r)
	}
	// The page is idle again (the button sends), and shows the words the
	// run streamed before it stopped, as far as they reached it: the
	// client drops its connection when stop is pressed, so words the run
	// emitted meanwhile are in the thread but may never reach this page
	// (the reload below shows them all).
	idle := false
	p.run("the chat idle", chromedp.Poll(fmt.Sprintf(`!document.querySelector('%s svg.lucide-square')`, chatButton), &idle, chromedp.WithPollingTimeout(60*time.Second)))
	var shown []string
	p.run("read the replies", chromedp.Evaluate(chatTextJS(assistantMessages), &shown))
	recorded := lastAssistantText(th)
	if len(shown) == 0 || !strings.HasPrefix(recorded, "word1 ") || !shownPrefix(shown[len(shown)-1], recorded) {
		t.Errorf("after stop the page's last reply is %q, the thread recorded %q", shown[len(shown)-1:], recorded)
	}
	if len(shown) < len(replies)+1 || len(streaming) == 0 {
		t.Errorf("replies before the slow run %d, after %d", len(replies), len(shown))
	}
	p.shot(thread + "-stopped")
	p.checks()

	// And a reload after the stop shows both runs, the stopped reply as
	// far as it went.
	p.openThread(thread)
	p.waitText("the history's questions", userMessages, `texts.length === 2`)
	after := p.waitText("the history's stopped reply", assistantMessages, fmt.Sprintf(`texts.length > 0 && texts[texts.length - 1] === %q`, strings.TrimSpace(recorded)))
	if len(after) != len(shown) {
		t.Errorf("after the second reload the page shows %d replies, before it %d", len(after), len(shown))
	}
	p.shot(thread + "-history-after-stop")
	p.checks()

	// An interrupt: the run ends asking for approval, the page shows what
	// it said and the question with its buttons; Approve resumes it (a run
	// of its own, whose resume resolves the interrupt) and the booking is
	// confirmed; a second interrupt, declined, is answered "not booked".
	p.send("interrupt me")
	p.waitText("the interrupted run's reply", assistantMessages, `texts.some((s) => s.includes("I can book a table, but I need your approval first."))`)
	th = waitThread(t, base, thread, "the interrupted run recorded", func(th demoThread) bool {
		return th.LiveRunID == "" && len(th.Runs) == 3
	})
	if th.Runs[0].Outcome != threads.OutcomeInterrupted {
		t.Errorf("the interrupted run ended %q", th.Runs[0].Outcome)
	}
	p.answer(approveButton, "Book a table for two at 8pm?")
	p.shot(thread + "-interrupted")
	p.press("approve", approveButton)
	p.waitText("the resumed run's reply", assistantMessages, `texts.some((s) => s.includes("Booked: a table for two at 8pm."))`)
	th = waitThread(t, base, thread, "the resumed run recorded", func(th demoThread) bool {
		return th.LiveRunID == "" && len(th.Runs) == 4 && th.Runs[0].Outcome == threads.OutcomeSucceeded
	})
	if len(th.Interrupts) != 0 {
		t.Errorf("after approval the thread still waits on %d interrupts", len(th.Interrupts))
	}
	p.shot(thread + "-approved")
	p.checks()

	p.send("interrupt again")
	p.answer(declineButton, "Book a table for two at 8pm?")
	p.press("decline", declineButton)
	p.waitText("the declined run's reply", assistantMessages, `texts.some((s) => s.includes("Understood, I will not book."))`)
	th = waitThread(t, base, thread, "the declined run recorded", func(th demoThread) bool {
		return th.LiveRunID == "" && len(th.Runs) == 6 && th.Runs[0].Outcome == threads.OutcomeSucceeded
	})
	p.shot(thread + "-declined")
	p.checks()
}

// The interrupt's question and buttons, as the page renders them
// (ckdemo_ui/src/main.jsx).
const (
	interruptBox  = `[data-testid="agui-interrupt"]`
	approveButton = `[data-testid="agui-approve"]`
	declineButton = `[data-testid="agui-decline"]`
)

// answer waits for the interrupt's question, with button, in the chat.
func (p *chatPage) answer(button, question string) {
	p.t.Helper()
	ok := false
	p.run("the interrupt's question", chromedp.Poll(fmt.Sprintf(`((box) => !!box && box.innerText.includes(%q) && !!box.querySelector(%q))(document.querySelector(%q))`, question, button, interruptBox),
		&ok, chromedp.WithPollingTimeout(60*time.Second)))
}

// press clicks an answer of the interrupt box and waits until the box is
// gone. The click is the element's own click(), on the button found at
// that moment: a mouse click at the coordinates of a button found a few
// round trips earlier was lost once on a loaded machine (the chat had
// rendered the box again meanwhile), and the run then never went on.
func (p *chatPage) press(what, button string) {
	p.t.Helper()
	clicked, gone := false, false
	p.run("press "+what,
		chromedp.Poll(fmt.Sprintf(`((b) => !!b && (b.click(), true))(document.querySelector(%q))`, button), &clicked, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Poll(fmt.Sprintf(`!document.querySelector(%q)`, interruptBox), &gone, chromedp.WithPollingTimeout(60*time.Second)))
}

// lastAssistantText is the text of the thread's last assistant message.
func lastAssistantText(th demoThread) string {
	for i := len(th.Messages) - 1; i >= 0; i-- {
		if m := th.Messages[i]; m.Role == "assistant" {
			if s, ok := m.Content.(string); ok {
				return s
			}
			return fmt.Sprint(m.Content)
		}
	}
	return ""
}

// lastWordJS is the number of the last "wordN" of the page's last reply.
const lastWordJS = `((texts) => { const m = [...(texts[texts.length - 1] ?? "").matchAll(/word(\d+)/g)].pop(); return m ? Number(m[1]) : 0; })(%s)`

// TestCopilotKitPageTwoReplicas: two `agui demo --copilotkit --nats`
// sharing one NATS server behind the page. A slow run starts through A's
// page; the page reloaded from B connects through B to the thread and
// follows the run A still serves; the stop button, through B, stops it on
// A.
func TestCopilotKitPageTwoReplicas(t *testing.T) {
	natsURL, shutdown := startNATS(t, true)
	defer shutdown()
	baseA, stopA := startCopilotKitDemo(t, "--nats", natsURL)
	defer stopA()
	baseB, stopB := startCopilotKitDemo(t, "--nats", natsURL)
	defer stopB()
	p := newChatPage(t, baseA)
	const thread = "ck-replicas"

	p.openThread(thread)
	p.send("slow, please")
	p.waitText("the slow reply streaming from A", assistantMessages, `texts.length === 1 && /word3 /.test(texts[0] + " ")`)
	th := waitThread(t, baseA, thread, "the run live on A", func(th demoThread) bool { return th.LiveRunID != "" })
	live := th.LiveRunID
	var seenOnA int
	p.run("read the last word", chromedp.Evaluate(fmt.Sprintf(lastWordJS, chatTextJS(assistantMessages)), &seenOnA))
	if seenOnA < 3 {
		t.Fatalf("the page on A shows word%d as the last, after word3 was seen", seenOnA)
	}
	p.shot("ck-replicas-on-a")
	p.checks()

	// The reload, through B: the question, and the reply still growing
	// (A serves the run, B streams it from the log).
	p.moveTo(baseB)
	p.openThread(thread)
	p.waitText("the question through B", userMessages, `texts.length === 1 && texts[0] === "slow, please"`)
	grows := false
	p.run("the reply grows through B", chromedp.Poll(fmt.Sprintf(lastWordJS+` > %d`, chatTextJS(assistantMessages), seenOnA+2), &grows, chromedp.WithPollingTimeout(60*time.Second)))
	p.shot("ck-replicas-on-b")

	stoppable := false
	p.run("press stop on B", chromedp.Poll(fmt.Sprintf(`!!document.querySelector('%s svg.lucide-square')`, chatButton), &stoppable, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Click(chatButton, chromedp.ByQuery))
	// A's view of the thread: the run it served ended, cancelled.
	th = waitThread(t, baseA, thread, "the run on A stopped", func(th demoThread) bool { return th.LiveRunID == "" && len(th.Runs) == 1 })
	if r := th.Runs[0]; r.RunID != live || r.Outcome != threads.OutcomeCancelled {
		t.Errorf("the run %s ended as %+v, want it cancelled", live, r)
	}
	idle := false
	p.run("the chat idle", chromedp.Poll(fmt.Sprintf(`!document.querySelector('%s svg.lucide-square')`, chatButton), &idle, chromedp.WithPollingTimeout(60*time.Second)))
	var shown []string
	p.run("read the replies", chromedp.Evaluate(chatTextJS(assistantMessages), &shown))
	if recorded := lastAssistantText(th); len(shown) != 1 || !shownPrefix(shown[0], recorded) {
		t.Errorf("after stop through B the page shows %q, the thread recorded %q", shown, recorded)
	}
	p.shot("ck-replicas-stopped")
	p.checks()
}

// shownPrefix reports whether the reply a page shows after a stop is the
// start of what the thread recorded, whole words of it and at least one:
// words emitted after the client dropped its stream are recorded but never
// shown on that page.
func shownPrefix(shown, recorded string) bool {
	shownWords, recordedWords := strings.Fields(shown), strings.Fields(recorded)
	return len(shownWords) > 0 && len(shownWords) <= len(recordedWords) && slices.Equal(shownWords, recordedWords[:len(shownWords)])
}
