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
	f.Comment("ProtocolVersion is the AG-UI protocol version this SDK implements (the schema's")
	f.Comment("x-agui-protocol-version). It is the one declaration of it: the client puts it on every")
	f.Comment("RunAgentInput it sends to a peer that reads it, and the server on every RUN_STARTED.")
	f.Const().Id("ProtocolVersion").Op("=").Lit(e.m.Version)
}
