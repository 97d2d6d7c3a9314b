package cli

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestCopilotKitPageIsCurrent rebuilds the page from its sources and lock
// file (npm ci, then the build, in a temporary directory) and fails when
// the build differs from what is committed and embedded, naming the files.
func TestCopilotKitPageIsCurrent(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the committed build of the page (ckdemo_ui/dist) is not checked against its sources")
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "ckdemo_ui")
	dir := t.TempDir()
	// The sources: everything in the folder but what npm and the build make.
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "node_modules" || rel == "dist" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a hang guard: npm ci downloads
	defer cancel()
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund", "--loglevel=error"}, {"run", "build"}} {
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	built := os.DirFS(filepath.Join(dir, "dist"))
	committed, err := fs.Sub(copilotKitUI, "ckdemo_ui/dist")
	if err != nil {
		t.Fatal(err)
	}
	want, got := files(t, built), files(t, committed)
	var stale []string
	for name, data := range want {
		if c, ok := got[name]; !ok {
			stale = append(stale, name+" (not committed)")
		} else if !bytes.Equal(c, data) {
			stale = append(stale, name+" (differs)")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" (no longer built)")
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Fatalf("the committed build of the page is stale: run `npm ci && npm run build` in %s and commit dist/ (then go build again, it is embedded):\n%s",
			src, strings.Join(stale, "\n"))
	}
	t.Logf("%d files, the build matches the commit", len(want))
}

// files reads every file of fsys, by path.
func files(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		m[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCopilotKitDemoServes runs `agui demo --copilotkit` in process and
// asks it over HTTP: the page and every asset it names, the runtime's info
// and a run through it, the plain endpoint beside it; what is not a page
// read is refused.
func TestCopilotKitDemoServes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	base, stop := startCopilotKitDemo(t)
	defer stop()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	resp, page := get("/?thread=t1")
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<div id="root">`) || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET /: %d %v\n%s", resp.StatusCode, resp.Header, page)
	}
	assets := regexp.MustCompile(`(?:src|href)="\./(assets/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(assets) == 0 {
		t.Fatalf("the page names no assets:\n%s", page)
	}
	for _, m := range assets {
		if resp, _ := get("/" + m[1]); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("GET /%s: %d, Cache-Control %q", m[1], resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	if resp, _ := get("/assets/nothing.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET a missing asset: %d", resp.StatusCode)
	}
	resp, err := http.Post(base+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", resp.StatusCode)
	}

	if resp, info := get("/api/copilotkit/info"); resp.StatusCode != http.StatusOK || !strings.Contains(info, `"agents":{"demo":`) {
		t.Errorf("GET /api/copilotkit/info: %d\n%s", resp.StatusCode, info)
	}
	run := `{"threadId":"t1","runId":"r1","messages":[{"id":"u","role":"user","content":"hello"}],"state":{},"tools":[],"context":[]}`
	for _, path := range []string{"/api/copilotkit/agent/demo/run", "/agent"} {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(strings.Replace(run, "r1", "r"+path, 1)))
		if err != nil {
			t.Fatal(err)
		}
		stream, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(stream), `"type":"RUN_FINISHED"`) {
			t.Errorf("POST %s: %d\n%s", path, resp.StatusCode, stream)
		}
	}
	// Both runs are the thread's: the runtime and the endpoint share it.
	if th := readThread(t, base, "t1"); len(th.Runs) != 2 {
		t.Errorf("thread t1 has %d runs, want 2: %+v", len(th.Runs), th.Runs)
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestCopilotKitDemoFlags: --copilotkit with --exercise is refused.
func TestCopilotKitDemoFlags(t *testing.T) {
	var stderr bytes.Buffer
	code := runDemo(&Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr}, []string{"--copilotkit", "--exercise"})
	if code != ExitUsage || !strings.Contains(stderr.String(), "give one of them") {
		t.Errorf("exit %d; stderr: %s", code, stderr.String())
	}
}
