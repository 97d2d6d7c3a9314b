package schemamodel

import (
	"strings"
	"unicode"
)

// initialisms are spelled in capitals in Go names, as golint asks.
var initialisms = map[string]string{"Id": "ID", "Ids": "IDs", "Url": "URL", "Json": "JSON", "Http": "HTTP", "Api": "API"}

// splitCamel splits "toolCallIds" into "tool", "Call", "Ids".
func splitCamel(s string) []string {
	var words []string
	start := 0
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			words = append(words, s[start:i])
			start = i
		}
	}
	return append(words, s[start:])
}

// GoName turns a member or definition name ("toolCallIds", "RunAgentInput")
// into its Go name ("ToolCallIDs", "RunAgentInput").
func GoName(json string) string {
	words := splitCamel(json)
	for i, w := range words {
		w = strings.ToUpper(w[:1]) + w[1:]
		if v, ok := initialisms[w]; ok {
			w = v
		}
		words[i] = w
	}
	return strings.Join(words, "")
}

// EnumName turns a wire value ("tool-call", "assistant", "TEXT_MESSAGE_START")
// into the suffix of its constant ("ToolCall", "Assistant", "TextMessageStart").
func EnumName(wire string) string {
	parts := strings.FieldsFunc(wire, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	for i, p := range parts {
		p = strings.ToLower(p)
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return strings.Join(parts, "")
}
