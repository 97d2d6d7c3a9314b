package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agui-go/sdk/agui/server"
)

// TestThreadRemember: with ThreadConfig.Remember a client that sends only
// its new message gets an agent that sees the whole conversation and the
// thread's state; a message it sends with a stored id replaces the stored
// one where it stood; a client that sends everything gets what it sent;
// an unknown thread starts from the client's messages; Authorize is asked.
func TestThreadRemember(t *testing.T) {
	type seen struct {
		messages []string // id:content of each message the agent got
		state    string
	}
	var mu sync.Mutex
	var runs []seen
	agent := server.AgentFunc[turnState](func(ctx context.Context, rc *server.RunContext[turnState]) (server.Outcome, error) {
		var s seen
		for _, m := range rc.Input().Messages {
			b, _ := json.Marshal(m)
			var v struct{ ID, Content string }
			json.Unmarshal(b, &v)
			s.messages = append(s.messages, v.ID+":"+v.Content)
		}
		b, _ := json.Marshal(rc.State())
		s.state = string(b)
		mu.Lock()
		runs = append(runs, s)
		n := len(runs)
		mu.Unlock()
		if err := rc.ChangeState(func(st *turnState) { st.Turns = n }); err != nil {
			return server.Outcome{}, err
		}
		m, err := rc.StartTextMessage(server.WithID("a" + string(rune('0'+n))))
		if err != nil {
			return server.Outcome{}, err
		}
		if err := m.Append("reply"); err != nil {
			return server.Outcome{}, err
		}
		return server.Success(), m.End()
	})
	deny := errors.New("not your thread")
	srv := threadServer(t, agent, server.ThreadConfig{Remember: true, Authorize: func(r *http.Request, threadID, runID string) error {
		if threadID == "theirs" {
			return deny
		}
		return nil
	}})
	post := func(thread, run, messages string, state string) (int, string) {
		t.Helper()
		body := `{"threadId":"` + thread + `","runId":"` + run + `","messages":[` + messages + `]` + state + `}`
		resp, err := http.Post(srv.URL+"/agent", "application/json", strings.NewReader(body))
		noErr(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	user := func(id, text string) string { return `{"id":"` + id + `","role":"user","content":"` + text + `"}` }
	last := func() seen {
		mu.Lock()
		defer mu.Unlock()
		return runs[len(runs)-1]
	}

	code, _ := post("th", "r1", user("u1", "hi"), "")
	equal(t, true, http.StatusOK, code)
	equal(t, false, []string{"u1:hi"}, last().messages, "a new thread: the client's messages")

	code, _ = post("th", "r2", user("u2", "and?"), "")
	equal(t, true, http.StatusOK, code)
	equal(t, false, []string{"u1:hi", "a1:reply", "u2:and?"}, last().messages, "a thin client")
	jsonEq(t, `{"turns":1}`, last().state)

	code, _ = post("th", "r3", user("u1", "hello")+","+user("u3", "more"), `,"state":{"turns":7}`)
	equal(t, true, http.StatusOK, code)
	equal(t, false, []string{"u1:hello", "a1:reply", "u2:and?", "a2:reply", "u3:more"}, last().messages, "an edit keeps its place")
	jsonEq(t, `{"turns":7}`, last().state)

	all := strings.Join([]string{user("u1", "hello"), `{"id":"a1","role":"assistant","content":"reply"}`, user("u2", "and?"),
		`{"id":"a2","role":"assistant","content":"reply"}`, user("u3", "more"), `{"id":"a3","role":"assistant","content":"reply"}`, user("u4", "all")}, ",")
	code, _ = post("th", "r4", all, "")
	equal(t, true, http.StatusOK, code)
	equal(t, false, []string{"u1:hello", "a1:reply", "u2:and?", "a2:reply", "u3:more", "a3:reply", "u4:all"}, last().messages, "a thick client")

	before := len(runs)
	code, body := post("theirs", "r5", user("x", "let me in"), "")
	equal(t, false, http.StatusForbidden, code, body)
	truth(t, false, strings.Contains(body, `"code":"FORBIDDEN"`) && strings.Contains(body, deny.Error()), body)
	equal(t, false, before, len(runs), "the agent ran for a refused request")
}
