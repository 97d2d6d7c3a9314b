package eino

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agui-go/sdk/internal/adaptertest"
	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// errorBody is what api.openai.com answers when the recorded streams run out.
const errorBody = `{"error":{"message":"no more recorded streams","type":"server_error"}}`

// recorded names a Chat Completions stream recorded for the OpenAI adapter's
// tests (adapters/openai/testdata), which the replay serves from there.
func recorded(name string) string { return filepath.Join("..", "..", "openai", "testdata", name) }

// replay is a stand-in for api.openai.com: each request gets the next
// recorded stream, and its body is kept for the test to check.
type replay struct{ *adaptertest.Replay }

func newReplay(t *testing.T, files ...string) *replay {
	t.Helper()
	return &replay{adaptertest.NewReplay(t, errorBody, files...)}
}

// model is Eino's own OpenAI model component, pointed at the replay.
func (r *replay) model(t testing.TB) model.ToolCallingChatModel {
	t.Helper()
	m, err := einoopenai.NewChatModel(context.Background(), &einoopenai.ChatModelConfig{
		BaseURL: r.Srv.URL + "/v1", APIKey: "sk-test", Model: "gpt-4.1-mini",
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The provider-independent helpers live in internal/adaptertest.
var (
	runHTTP   = adaptertest.RunHTTP
	summarize = adaptertest.Summarize
	jsonAt    = adaptertest.JSONAt
)

func must[T any](v T, err error) T { return adaptertest.Must(v, err) }
