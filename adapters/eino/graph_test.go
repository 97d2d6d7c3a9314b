package eino

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// A compiled chain (a prompt step, then Eino's OpenAI component) served as
// a Graph: its streamed message is the reply.
func TestGraph(t *testing.T) {
	compile := func(t *testing.T, r *replay) compose.Runnable[[]*schema.Message, *schema.Message] {
		ctx := context.Background()
		prompt := compose.InvokableLambda(func(_ context.Context, in []*schema.Message) ([]*schema.Message, error) {
			return append([]*schema.Message{schema.SystemMessage("You are a weather assistant.")}, in...), nil
		})
		return must(compose.NewChain[[]*schema.Message, *schema.Message]().
			AppendLambda(prompt).AppendChatModel(r.model(t)).Compile(ctx))
	}
	t.Run("text", func(t *testing.T) {
		r := newReplay(t, recorded("chat_text.sse"))
		s := summarize(runHTTP(t, NewGraph(compile(t, r)).WithGraphState(), baseInput))
		if len(s.Text) != 1 || s.Count("TEXT_MESSAGE_START") != 1 {
			t.Fatalf("want one text message, got %v", s.Types)
		}
		for _, text := range s.Text {
			if text != "It is sunny in Paris." {
				t.Errorf("text %q", text)
			}
		}
		checkUsage(t, s.Finished.Usage, 42, 7, 49)
		want := []string{"system: You are a weather assistant.", context1, "user: What is the weather in Paris?"}
		if got := transcript(r.Requests()[0]); !slices.Equal(got, want) {
			t.Errorf("conversation sent %q, want %q", got, want)
		}
	})
	t.Run("tool call", func(t *testing.T) {
		r := newReplay(t, recorded("chat_frontend_call.sse"))
		s := summarize(runHTTP(t, NewGraph(compile(t, r)), baseInput))
		if p := s.Pending(t); !slices.Equal(p, []string{"call_confirm_7"}) {
			t.Errorf("pending %v, want the call the graph did not run", p)
		}
	})
	t.Run("error", func(t *testing.T) {
		r := newReplay(t, recorded("chat_error.sse"))
		s := summarize(runHTTP(t, NewGraph(compile(t, r)), baseInput))
		if s.Failed == nil || s.Count("TEXT_MESSAGE_CONTENT") != 1 {
			t.Errorf("want RUN_ERROR after the streamed text, got %v", s.Types)
		}
	})
}
