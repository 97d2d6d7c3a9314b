//go:build agui_noverify

package verify

import "github.com/agui-go/sdk/agui"

// Server is the server-profile verifier, turned off by the build tag
// agui_noverify: a zero-size type whose methods do nothing and that can
// produce no error. Build without the tag to verify.
type Server struct{}

// Observe does nothing; verification is off.
func (*Server) Observe(agui.Event) error { return nil }

// Finish does nothing; verification is off.
func (*Server) Finish() error { return nil }

// Seed does nothing; verification is off.
func (*Server) Seed([]agui.Message) {}
