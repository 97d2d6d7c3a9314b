// Package schema embeds schema/events.json, the JSON Schema (draft 2020-12)
// of AG-UI 1.1 that the agui package is generated from, so programs can
// validate documents against the exact contract this SDK was built for.
//
// Every definition is addressable by its $anchor, named as in the official
// schema: validate a request body against "…/events.json#RunAgentInput".
// The x-agui-* keywords it carries are documented in README.md beside it.
package schema

import _ "embed"

// ID is the schema's $id.
const ID = "https://agui-go.dev/schema/1.1/events.json"

// Events is the schema document.
//
//go:embed events.json
var Events []byte
