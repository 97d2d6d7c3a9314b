package generator

import (
	"fmt"

	. "github.com/dave/jennifer/jen"
)

// emitCodes writes the stable error codes. They travel in RUN_ERROR.code,
// whose vocabulary is open, so the type is a plain string type and callers
// may use codes this list does not name.
func (e *emitter) emitCodes(f *File) {
	f.Comment("ErrorCode is a stable, machine-readable reason a run failed. It travels in RUN_ERROR's")
	f.Comment("code member. The set is open on purpose: a new code breaks no caller.")
	f.Type().Id("ErrorCode").String()
	f.Const().DefsFunc(func(g *Group) {
		for _, c := range e.m.ErrorCodes {
			g.Comment(fmt.Sprintf("Code%s (%s): %s.", c.GoName, c.Code, c.Description))
			g.Id("Code" + c.GoName).Id("ErrorCode").Op("=").Lit(c.Code)
		}
	})
	f.Comment("ErrorCodes returns the codes this SDK produces, in schema order.")
	f.Func().Id("ErrorCodes").Params().Index().Id("ErrorCode").Block(
		Return(Index().Id("ErrorCode").ValuesFunc(func(g *Group) {
			for _, c := range e.m.ErrorCodes {
				g.Id("Code" + c.GoName)
			}
		})),
	)
	f.Comment("Describe says in one sentence when the code is used; it is empty for codes this SDK does not define.")
	f.Func().Params(Id("c").Id("ErrorCode")).Id("Describe").Params().String().Block(
		Switch(Id("c")).BlockFunc(func(g *Group) {
			for _, c := range e.m.ErrorCodes {
				g.Case(Id("Code" + c.GoName)).Block(Return(Lit(c.Description)))
			}
		}),
		Return(Lit("")),
	)
	e.emitHTTPCodes(f)
	f.Comment("ProtocolVersion is the AG-UI protocol version this SDK implements (the schema's")
	f.Comment("x-agui-protocol-version). It is the one declaration of it: the client puts it on every")
	f.Comment("RunAgentInput it sends to a peer that reads it, and the server on every RUN_STARTED.")
	f.Const().Id("ProtocolVersion").Op("=").Lit(e.m.Version)
}

// emitHTTPCodes writes the codes of the HTTP handler's JSON error body, each
// with its status. They are a type apart from ErrorCode: they answer a request
// before any stream starts, where an ErrorCode ends a run that started.
func (e *emitter) emitHTTPCodes(f *File) {
	f.Comment("HTTPCode is a stable, machine-readable reason an AG-UI HTTP endpoint refused a request")
	f.Comment("before any stream started. It travels in the JSON error body,")
	f.Comment(`{"error":{"code":…,"message":…}}, beside its status (see Status); once a stream has`)
	f.Comment("started, a failure is a RUN_ERROR with an ErrorCode instead.")
	f.Type().Id("HTTPCode").String()
	f.Const().DefsFunc(func(g *Group) {
		for _, c := range e.m.HTTPCodes {
			g.Comment(fmt.Sprintf("HTTPCode%s (%s, HTTP %d): %s.", c.GoName, c.Code, c.Status, c.Description))
			g.Id("HTTPCode" + c.GoName).Id("HTTPCode").Op("=").Lit(c.Code)
		}
	})
	f.Comment("HTTPCodes returns the HTTP error codes this SDK answers with, in schema order.")
	f.Func().Id("HTTPCodes").Params().Index().Id("HTTPCode").Block(
		Return(Index().Id("HTTPCode").ValuesFunc(func(g *Group) {
			for _, c := range e.m.HTTPCodes {
				g.Id("HTTPCode" + c.GoName)
			}
		})),
	)
	f.Comment("Status is the HTTP status an answer with the code carries; it is 0 for codes this SDK does not define.")
	f.Func().Params(Id("c").Id("HTTPCode")).Id("Status").Params().Int().Block(
		Switch(Id("c")).BlockFunc(func(g *Group) {
			for _, c := range e.m.HTTPCodes {
				g.Case(Id("HTTPCode" + c.GoName)).Block(Return(Lit(c.Status)))
			}
		}),
		Return(Lit(0)),
	)
	f.Comment("Describe says in one sentence when the code is used; it is empty for codes this SDK does not define.")
	f.Func().Params(Id("c").Id("HTTPCode")).Id("Describe").Params().String().Block(
		Switch(Id("c")).BlockFunc(func(g *Group) {
			for _, c := range e.m.HTTPCodes {
				g.Case(Id("HTTPCode" + c.GoName)).Block(Return(Lit(c.Description)))
			}
		}),
		Return(Lit("")),
	)
}
