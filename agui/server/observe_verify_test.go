//go:build !agui_noverify

package server_test

import (
	"context"

	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/agui/server"
)

func init() {
	verifiedObserverCases = append(verifiedObserverCases, observerCase{
		"violation", server.Func(func(ctx context.Context, rc *server.Stateless) (server.Outcome, error) {
			return server.Success(), rc.Emit(agui.NewTextMessageContent("nope", "x"))
		}), false, agui.CodeProtocolViolation, agui.EventTypeRunError, true,
	})
}
