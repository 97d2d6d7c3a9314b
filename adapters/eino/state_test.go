package eino

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/agui-go/sdk/agui"
)

// forecaster is get_weather that publishes what it found as a session value
// and reads it back from Eino's session.
type forecaster struct{ seen any }

func (*forecaster) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "get_weather", Desc: "The weather in a city.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"city": {Type: schema.String, Required: true}})}, nil
}

func (f *forecaster) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	if err := PublishSessionValue(ctx, "forecast/paris", map[string]any{"sky": "sunny"}); err != nil {
		return "", err
	}
	f.seen, _ = adk.GetSessionValue(ctx, "forecast/paris")
	return `{"sky":"sunny","highC":24}`, nil
}

// TestPublishSessionValue: a value a tool publishes is Eino's session value
// and the client's state: a STATE_DELTA on an input state that is an
// object, a STATE_SNAPSHOT when the input has none; the key is escaped as
// a JSON Pointer token.
func TestPublishSessionValue(t *testing.T) {
	for _, tc := range []struct {
		name, state string
		want        agui.EventType
	}{
		{"object state", `{"city":"Paris"}`, agui.EventTypeStateDelta},
		{"no state", `null`, agui.EventTypeStateSnapshot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReplay(t, recorded("chat_backend_call.sse"), recorded("chat_text.sse"))
			var f forecaster
			events := runHTTP(t, newAgent(t, r, &f), with(t, map[string]any{"state": json.RawMessage(tc.state)}))
			var got []agui.Event
			for _, ev := range events {
				if ev.Type() == agui.EventTypeStateDelta || ev.Type() == agui.EventTypeStateSnapshot {
					got = append(got, ev)
				}
			}
			if len(got) != 1 || got[0].Type() != tc.want {
				t.Fatalf("state events %v, want one %s", got, tc.want)
			}
			switch ev := got[0].(type) { //agui:nonexhaustive only the two state events are looked for
			case *agui.StateDelta:
				add, ok := ev.Delta[0].(*agui.AddOperation)
				if len(ev.Delta) != 1 || !ok || add.Path != "/forecast~1paris" || string(add.Value) != `{"sky":"sunny"}` {
					t.Errorf("delta %+v", ev.Delta)
				}
			case *agui.StateSnapshot:
				if string(ev.Snapshot) != `{"forecast/paris":{"sky":"sunny"}}` {
					t.Errorf("snapshot %s", ev.Snapshot)
				}
			}
			if f.seen == nil {
				t.Error("the value is not in Eino's session")
			}
		})
	}
}

func TestPublishSessionValueOutsideARun(t *testing.T) {
	if err := PublishSessionValue(context.Background(), "k", 1); !errors.Is(err, ErrNotInARun) {
		t.Fatalf("got %v, want ErrNotInARun", err)
	}
}
