// Package generator renders the Go code derived from schema/events.json:
// the agui package's types, codecs, protobuf binding and error codes, and the
// verifier's tables. It reads the schema through internal/schemamodel (in the
// core module, which the core's tests share) and validates it against the
// JSON Schema meta-schema first; jennifer and the validator are this
// module's dependencies, never the core's.
package generator

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agui-go/sdk/internal/schemamodel"
)

// The model the emitters render, named here as the emitters name it.
type (
	Model     = schemamodel.Model
	Kind      = schemamodel.Kind
	TypeRef   = schemamodel.TypeRef
	Field     = schemamodel.Field
	StructDef = schemamodel.StructDef
	Action    = schemamodel.Action
	UnionDef  = schemamodel.UnionDef
	Enum      = schemamodel.Enum
	Rule      = schemamodel.Rule
	ErrorCode = schemamodel.ErrorCode
)

// The kinds, actions and attributions the emitters switch on.
const (
	KindString     = schemamodel.KindString
	KindInt        = schemamodel.KindInt
	KindBool       = schemamodel.KindBool
	KindRaw        = schemamodel.KindRaw
	KindRawNotNull = schemamodel.KindRawNotNull
	KindRawObject  = schemamodel.KindRawObject
	KindEnum       = schemamodel.KindEnum
	KindStruct     = schemamodel.KindStruct
	KindUnion      = schemamodel.KindUnion
	KindArray      = schemamodel.KindArray
	KindContent    = schemamodel.KindContent

	ActionContinue = schemamodel.ActionContinue

	AttributionTag      = schemamodel.AttributionTag
	AttributionIdentity = schemamodel.AttributionIdentity
	AttributionNone     = schemamodel.AttributionNone
)

// Load reads, validates and resolves the schema at path.
func Load(path string) (*Model, error) {
	return schemamodel.Loader{Validate: validateSchema}.Load(path)
}

// LoadBytes validates and resolves a schema document. name is used in error
// positions and in generated headers.
func LoadBytes(name string, data []byte) (*Model, error) {
	return schemamodel.Loader{Validate: validateSchema}.LoadBytes(name, data)
}

// validateSchema compiles the document with a 2020-12 validator: that checks
// it against the meta-schema and proves every $ref resolves. The model's own
// checks (supported keywords, annotations) come after.
func validateSchema(data []byte, id string, defs []string) error {
	if id == "" {
		id = "urn:agui-go:schema"
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(id, bytes.NewReader(data)); err != nil {
		return err
	}
	if _, err := c.Compile(id); err != nil {
		return fmt.Errorf("invalid JSON Schema: %w", err)
	}
	for _, ptr := range defs {
		if _, err := c.Compile(id + "#" + ptr); err != nil {
			return &schemamodel.DefinitionError{Pointer: ptr, Err: err}
		}
	}
	return nil
}
