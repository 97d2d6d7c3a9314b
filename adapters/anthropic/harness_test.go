package anthropic

import (
	"testing"

	"github.com/agui-go/sdk/internal/adaptertest"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// errorBody is what api.anthropic.com answers when the recorded streams run out.
const errorBody = `{"type":"error","error":{"type":"api_error","message":"no more recorded streams"}}`

// replay is a stand-in for api.anthropic.com: each request gets the next
// recorded stream from testdata, and its body is kept for the test to check.
type replay struct{ *adaptertest.Replay }

func newReplay(t *testing.T, files ...string) *replay {
	t.Helper()
	return &replay{adaptertest.NewReplay(t, errorBody, files...)}
}

// requests returns the bodies received so far.
func (r *replay) requests() []map[string]any { return r.Requests() }

func (r *replay) client() ant.Client {
	return ant.NewClient(option.WithBaseURL(r.Srv.URL), option.WithAPIKey("sk-ant-test"), option.WithMaxRetries(0))
}

// The provider-independent helpers live in internal/adaptertest.
var (
	runHTTP   = adaptertest.RunHTTP
	summarize = adaptertest.Summarize
	jsonAt    = adaptertest.JSONAt
)

type summary = adaptertest.Summary

func must[T any](v T, err error) T { return adaptertest.Must(v, err) }
