// Package schemamodel is schema/events.json resolved for Go: every node
// already carries the Go name it will have, so the generator's emitters
// (gen/internal/generator, a module of its own) never look at raw JSON, and
// the core's tests read the same model to build their samples. Slices keep
// schema order; emitting in that order makes output deterministic.
//
// It lives in the core module, without dependencies, so that those tests do
// not need the generator's (the generator validates the document against
// the JSON Schema meta-schema through Loader.Validate).
package schemamodel

// Model is a resolved schema.
type Model struct {
	Source  string // schema path as given, recorded in file headers
	Hash    string // sha256 of the schema bytes, hex
	Version string // x-agui-protocol-version

	Events     []*StructDef // event structs, in EventType enum order
	EventType  *Enum        // the EventType enum
	EventUnion *UnionDef    // the Event union
	Structs    []*StructDef // every struct that becomes a Go type, in $defs order (events included)
	Unions     []*UnionDef
	Enums      []*Enum
	Arrays     []*NamedArray
	Embed      *StructDef   // the mixin emitted as an embedded struct (EventBase)
	Mixins     []*StructDef // Go-only embedded mixins (Attribution), in $defs order

	Entities   []Entity
	Rules      []Rule
	ErrorCodes []ErrorCode
	HTTPCodes  []HTTPCode

	Proto ProtoModel // the protobuf binding (model_proto.go)
}

// Kind says how a value is represented in Go.
type Kind int

const (
	KindString     Kind = iota // string
	KindInt                    // int64 with bounds
	KindBool                   // bool
	KindRaw                    // json.RawMessage, any JSON including null
	KindRawNotNull             // json.RawMessage, any JSON except null
	KindRawObject              // json.RawMessage holding an object
	KindEnum                   // named string type
	KindStruct                 // generated struct
	KindUnion                  // sealed interface
	KindArray                  // slice of Elem
	KindContent                // agui.Content: a string or a list of content parts
)

// Type is the resolved type of a field or array element.
type TypeRef struct {
	Kind     Kind
	Enum     *Enum
	Struct   *StructDef
	Union    *UnionDef
	Elem     *TypeRef    // array element; for Content, the content-part union
	Named    *NamedArray // set when the array has a named Go type
	Min, Max *int64      // integer bounds
	MinItems int         // arrays
	Format   string      // "json-pointer" for strings that must be pointers
}

// Field is one property of a struct.
type Field struct {
	JSON          string
	GoName        string
	Doc           string
	Type          *TypeRef
	Required      bool
	NullTolerated bool   // lenient decoding turns a legacy null into absence
	NullAlways    bool   // strict decoding does too: a permanent tolerance
	Const         string // fixed value (discriminators and constant members)
	IsConst       bool
	Embedded      bool       // lives in the embedded struct (EventBase)
	Mixin         *StructDef // lives in this embedded Go-only mixin (Attribution), nil when not
	ProtoField    int
	Ptr           string // JSON Pointer of the property in the schema, for errors
}

// Struct is a closed or open object definition.
type StructDef struct {
	Name     string // definition name in the schema
	GoName   string
	Doc      string
	Fields   []*Field     // Go order: discriminator, inherited required, own properties, inherited optional
	Wire     []*Field     // encoding order: declaration order, mixins first (see wireOrder)
	EmbedAt  int          // index in Wire before which the embedded mixin's members go; -1 for none
	Open     bool         // keeps unknown members (JSON Patch operations)
	Embeds   *StructDef   // embedded mixin (EventBase), if any
	GoMixins []*StructDef // embedded Go-only mixins (Attribution) holding some of Fields
	Method   string       // for a Go-only mixin: the accessor returning itself
	Disc     *Field       // the discriminating constant, when the struct is a union variant
	Unions   []*UnionDef  // unions it belongs to
	Event    *EventInfo
	Required int // number of required non-const fields
}

// Action is an event's lifecycle action (x-agui-lifecycle "action").
type Action string

// The lifecycle actions the schema may name.
const (
	ActionOpen     Action = "open"
	ActionContinue Action = "continue"
	ActionClose    Action = "close"
	ActionFail     Action = "fail"
	ActionChunk    Action = "chunk"
	ActionAnswer   Action = "answer"
	ActionUpsert   Action = "upsert"
	ActionMutate   Action = "mutate"
	ActionAnnotate Action = "annotate"
	ActionSeed     Action = "seed"
	ActionNone     Action = "none"
)

// Actions returns every lifecycle action, in the order the verifier's tables
// number them.
func Actions() []Action {
	return []Action{ActionOpen, ActionContinue, ActionClose, ActionFail, ActionChunk, ActionAnswer, ActionUpsert, ActionMutate, ActionAnnotate, ActionSeed, ActionNone}
}

// Attribution is how an event names the subagent it belongs to
// (x-agui-attribution).
type Attribution string

// The attributions the schema may name.
const (
	AttributionTag      Attribution = "tag"      // an optional subagentRunId tag
	AttributionIdentity Attribution = "identity" // a required subagentRunId: the event is about the subagent
	AttributionNone     Attribution = "none"     // never attributed
)

// EventInfo is what an event definition adds.
type EventInfo struct {
	Wire        string // e.g. TEXT_MESSAGE_CONTENT
	ConstName   string // Go name of the EventType constant
	Action      Action // lifecycle action
	Entity      string // entity kind, "" when none
	IDField     *Field // the field naming the entity, nil when none
	Attribution Attribution
	TagField    *Field // subagentRunId, nil when not attributable
	ProtoEnum   int
	ProtoOneof  int
}

// Union is a oneOf of object definitions told apart by one constant member.
type UnionDef struct {
	Name     string
	GoName   string
	Doc      string
	Disc     string // discriminator property
	Variants []*StructDef
}

// Enum is a closed set of strings.
type Enum struct {
	Name    string
	GoName  string
	Doc     string
	Values  []EnumValue
	Defined bool // emitted as its own type (false for EventType's inline use)
}

// EnumValue is one member of an Enum.
type EnumValue struct {
	Wire   string
	GoName string
}

// NamedArray is an array definition that gets a Go slice type (JSONPatch).
type NamedArray struct {
	Name   string
	GoName string
	Doc    string
	Elem   *TypeRef
}

// Entity is a kind of thing the verifier tracks.
type Entity struct {
	Kind   string
	GoName string
	Noun   string
	Plural string
}

// Rule is one ordering rule of the verifier.
type Rule struct {
	ID          string
	GoName      string
	Description string // the rule, stated: "a run starts once"
	OccursWhen  string // when a stream breaks it: "RUN_STARTED arrives while a run is active"
}

// ErrorCode is one stable error code.
type ErrorCode struct {
	Code        string
	GoName      string
	Description string
}

// HTTPCode is one stable code of the HTTP handler's JSON error body, with
// the one HTTP status that carries it.
type HTTPCode struct {
	Code        string
	GoName      string
	Status      int
	Description string
}
