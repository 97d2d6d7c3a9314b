package generator

import (
	"fmt"
	"strings"

	. "github.com/dave/jennifer/jen"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// emitVerifyTables writes the verifier's tables: its rules, the entity kinds
// and lifecycle actions, and factsOf, which reads from any event what the
// engine needs (action, entity, id, attribution) in one type switch. An event
// added to the schema with a known lifecycle role needs no engine change.
func (e *emitter) emitVerifyTables(f *File, aguiPath string) {
	m := e.m
	f.PackageComment("")

	// Rules.
	f.Comment("Rule is one ordering rule of the verifier. Values are stable and only ever appended;")
	f.Comment("String gives the rule's kebab-case id and Describe one sentence about it.")
	f.Type().Id("Rule").Uint8()
	f.Const().DefsFunc(func(g *Group) {
		for i, r := range m.Rules {
			g.Comment(fmt.Sprintf("%s (%s): %s. It occurs when %s.", r.GoName, r.ID, r.Description, r.OccursWhen))
			if i == 0 {
				g.Id(r.GoName).Id("Rule").Op("=").Iota().Op("+").Lit(1)
			} else {
				g.Id(r.GoName)
			}
		}
	})
	f.Comment("An array-index guard, as stringer writes: it stops compiling if a rule's value changes.")
	f.Func().Id("_").Params().BlockFunc(func(g *Group) {
		g.Var().Id("x").Index(Lit(1)).Struct()
		for i, r := range m.Rules {
			g.Id("_").Op("=").Id("x").Index(Id(r.GoName).Op("-").Lit(i + 1))
		}
	})
	f.Var().Id("ruleIDs").Op("=").Index(Op("...")).String().ValuesFunc(func(g *Group) {
		for _, r := range m.Rules {
			g.Id(r.GoName).Op(":").Lit(r.ID)
		}
	})
	f.Var().Id("ruleDescriptions").Op("=").Index(Op("...")).String().ValuesFunc(func(g *Group) {
		for _, r := range m.Rules {
			g.Id(r.GoName).Op(":").Lit(r.Description)
		}
	})
	f.Comment("String returns the rule's stable kebab-case id, such as \"not-open\".")
	f.Func().Params(Id("r").Id("Rule")).Id("String").Params().String().Block(
		If(Int().Call(Id("r")).Op("<").Len(Id("ruleIDs")).Op("&&").Id("ruleIDs").Index(Id("r")).Op("!=").Lit("")).Block(
			Return(Id("ruleIDs").Index(Id("r")))),
		Return(Lit("rule(").Op("+").Qual("strconv", "Itoa").Call(Int().Call(Id("r"))).Op("+").Lit(")")),
	)
	f.Comment("Describe states the rule in one sentence.")
	f.Func().Params(Id("r").Id("Rule")).Id("Describe").Params().String().Block(
		If(Int().Call(Id("r")).Op("<").Len(Id("ruleDescriptions"))).Block(Return(Id("ruleDescriptions").Index(Id("r")))),
		Return(Lit("")),
	)
	f.Comment("Rules returns every rule in order.")
	f.Func().Id("Rules").Params().Index().Id("Rule").Block(
		Return(Index().Id("Rule").ValuesFunc(func(g *Group) {
			for _, r := range m.Rules {
				g.Id(r.GoName)
			}
		})),
	)

	// Entities.
	f.Comment("entity is a kind of thing a run opens and closes.")
	f.Type().Id("entity").Uint8()
	f.Const().DefsFunc(func(g *Group) {
		g.Id("entityNone").Id("entity").Op("=").Iota()
		for _, en := range m.Entities {
			g.Id("entity" + en.GoName)
		}
		g.Id("entityCount")
	})
	f.Var().Id("entityNouns").Op("=").Index(Id("entityCount")).String().ValuesFunc(func(g *Group) {
		for _, en := range m.Entities {
			g.Id("entity" + en.GoName).Op(":").Lit(en.Noun)
		}
	})
	f.Var().Id("entityPlurals").Op("=").Index(Id("entityCount")).String().ValuesFunc(func(g *Group) {
		for _, en := range m.Entities {
			g.Id("entity" + en.GoName).Op(":").Lit(en.Plural)
		}
	})

	// Actions.
	f.Comment("action is what an event does to its entity.")
	f.Type().Id("action").Uint8()
	f.Const().DefsFunc(func(g *Group) {
		for i, a := range schemamodel.Actions() {
			if i == 0 {
				g.Id(actionName(a)).Id("action").Op("=").Iota()
			} else {
				g.Id(actionName(a))
			}
		}
	})

	// facts.
	f.Comment("facts is what the engine reads from one event.")
	f.Type().Id("facts").Struct(
		Id("action").Id("action"),
		Id("entity").Id("entity"),
		Comment("id names the entity; empty when the event names none."),
		Id("id").String(),
		Comment("tag is the event's subagentRunId attribution; tagged says whether it was present."),
		Id("tag").String(),
		Id("tagged").Bool(),
	)
	f.Comment("factsOf classifies an event by the lifecycle annotations of the schema.")
	var hot, cold []*StructDef
	for _, s := range m.Events {
		if s.Event.Action == ActionContinue {
			hot = append(hot, s)
		} else {
			cold = append(cold, s)
		}
	}
	f.Comment("factsOf classifies an event by the lifecycle annotations of the schema. It fills")
	f.Comment("*f, which must be zero, rather than returning a struct, and tries the continuations (the deltas that")
	f.Comment("make up most of a stream) first, in a function small enough to be inlined.")
	f.Func().Id("factsOf").Params(Id("ev").Qual(aguiPath, "Event"), Id("f").Op("*").Id("facts")).Block(
		If(Op("!").Id("continuationFacts").Call(Id("ev"), Id("f"))).Block(
			Id("otherFacts").Call(Id("ev"), Id("f")),
		),
	)
	f.Comment("continuationFacts fills *f, which must be zero, for a continuation event and reports")
	f.Comment("whether ev was one. It is written to stay under the inliner's budget.")
	f.Func().Id("continuationFacts").Params(Id("ev").Qual(aguiPath, "Event"), Id("f").Op("*").Id("facts")).Bool().BlockFunc(func(g *Group) {
		if len(hot) == 0 {
			g.Return(False())
			return
		}
		g.Var().Id("tag").Op("*").String()
		g.Switch(Id("e").Op(":=").Id("ev").Assert(Type())).BlockFunc(func(sw *Group) {
			for _, s := range hot {
				ev := s.Event
				if ev.Attribution != AttributionTag || ev.IDField == nil || !ev.IDField.Required || ev.Entity == "" {
					panic(fmt.Sprintf("%s: a continuation needs an entity, a required id and tag attribution", s.Name))
				}
				sw.Case(Op("*").Qual(aguiPath, s.GoName)).Block(
					List(Id("f").Dot("action"), Id("f").Dot("entity"), Id("f").Dot("id"), Id("tag")).Op("=").List(
						Id(actionName(ev.Action)), Id("entity"+schemamodel.GoName(ev.Entity)), Id("e").Dot(ev.IDField.GoName), Id("e").Dot(ev.TagField.GoName)),
				)
			}
			sw.Default().Block(Return(False()))
		})
		g.If(Id("tag").Op("!=").Nil()).Block(
			List(Id("f").Dot("tag"), Id("f").Dot("tagged")).Op("=").List(Op("*").Id("tag"), True()),
		)
		g.Return(True())
	})
	f.Comment("otherFacts fills *f for every event that is not a continuation.")
	f.Func().Id("otherFacts").Params(Id("ev").Qual(aguiPath, "Event"), Id("f").Op("*").Id("facts")).BlockFunc(func(g *Group) {
		g.Add(e.factsSwitch(cold, aguiPath))
		g.Op("*").Id("f").Op("=").Id("facts").Values()
	})
	e.emitDeref(f)
}

// factsSwitch is a type switch returning the facts of each of events.
func (e *emitter) factsSwitch(events []*StructDef, aguiPath string) Code {
	// Bind the event only when some case reads a member of it.
	subject := Id("e").Op(":=").Id("ev").Assert(Type())
	reads := false
	for _, s := range events {
		reads = reads || s.Event.IDField != nil || s.Event.Attribution != AttributionNone
	}
	if !reads {
		subject = Id("ev").Assert(Type())
	}
	return Switch(subject).BlockFunc(func(sw *Group) {
		for _, s := range events {
			ev := s.Event
			sw.Case(Op("*").Qual(aguiPath, s.GoName)).BlockFunc(func(c *Group) {
				vals := Dict{Id("action"): Id(actionName(ev.Action))}
				if ev.Entity != "" {
					vals[Id("entity")] = Id("entity" + schemamodel.GoName(ev.Entity))
				}
				if f := ev.IDField; f != nil {
					if f.Required {
						vals[Id("id")] = Id("e").Dot(f.GoName)
					} else {
						vals[Id("id")] = Id("deref").Call(Id("e").Dot(f.GoName))
					}
				}
				switch ev.Attribution {
				case AttributionIdentity:
					vals[Id("tag")] = Id("e").Dot(ev.TagField.GoName)
					vals[Id("tagged")] = True()
				case AttributionTag:
					vals[Id("tag")] = Id("deref").Call(Id("e").Dot(ev.TagField.GoName))
					vals[Id("tagged")] = Id("e").Dot(ev.TagField.GoName).Op("!=").Nil()
				}
				c.Op("*").Id("f").Op("=").Id("facts").Values(vals)
				c.Return()
			})
		}
	})
}

func (e *emitter) emitDeref(f *File) {
	f.Comment("deref reads an optional string member, \"\" when absent.")
	f.Func().Id("deref").Params(Id("p").Op("*").String()).String().Block(
		If(Id("p").Op("==").Nil()).Block(Return(Lit(""))),
		Return(Op("*").Id("p")),
	)
}

func actionName(a Action) string {
	return "action" + strings.ReplaceAll(schemamodel.EnumName(string(a)), " ", "")
}
