package genkit

import (
	"context"
	"testing"

	"github.com/agui-go/sdk/internal/adaptertest"
	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/openai/openai-go/option"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// errorBody is what api.openai.com answers when the recorded streams run out.
const errorBody = `{"error":{"message":"no more recorded streams","type":"server_error"}}`

// modelName is the Genkit name of the model the replay stands behind.
const modelName = "openai/gpt-4.1-mini"

// replay is a stand-in for api.openai.com: each request gets the next
// recorded Chat Completions stream from testdata, and its body is kept for
// the test to check.
type replay struct{ *adaptertest.Replay }

func newReplay(t *testing.T, files ...string) *replay {
	t.Helper()
	return &replay{adaptertest.NewReplay(t, errorBody, files...)}
}

func (r *replay) requests() []map[string]any { return r.Requests() }

// genkit starts Genkit for the test with its OpenAI-compatible plugin
// pointed at the replay, and the model defined. Genkit lives until the
// test ends (its Init watches the context it is given).
func (r *replay) genkit(t testing.TB) *gk.Genkit {
	t.Helper()
	return newGenkit(t, r.Srv.URL+"/v1/")
}

func newGenkit(t testing.TB, baseURL string) *gk.Genkit {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	plugin := &compat_oai.OpenAICompatible{Provider: "openai", APIKey: "sk-test", BaseURL: baseURL,
		Opts: []option.RequestOption{option.WithMaxRetries(0)}}
	g := gk.Init(ctx, gk.WithPlugins(plugin))
	plugin.DefineModel("openai", "gpt-4.1-mini", ai.ModelOptions{Supports: &compat_oai.BasicText})
	return g
}

// The provider-independent helpers live in internal/adaptertest.
var (
	runHTTP   = adaptertest.RunHTTP
	summarize = adaptertest.Summarize
	jsonAt    = adaptertest.JSONAt
)

type summary = adaptertest.Summary

func must[T any](v T, err error) T { return adaptertest.Must(v, err) }
