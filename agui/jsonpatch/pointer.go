package jsonpatch

import (
	"math"
	"strings"
)

// parsePointer splits an RFC 6901 pointer into its unescaped reference
// tokens; "" (the whole document) has none.
func parsePointer(p string) ([]string, bool) {
	if p == "" {
		return nil, true
	}
	if p[0] != '/' {
		return nil, false
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, false
			}
		}
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks, true
}

// escapePointer escapes one reference token of a JSON Pointer (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// arrayIndex parses an array index token: "0", or digits not starting with
// 0. It reports false for anything else, "-" included. A well-formed index
// too large for any array saturates, so it reads as past the end rather than
// as malformed.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || (tok[0] == '0' && len(tok) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < math.MaxInt32 {
			n = n*10 + int(c-'0')
		}
	}
	return n, true
}

// banned reports the tokens the reference client refuses to walk through:
// __proto__ anywhere, and prototype right after constructor.
func banned(toks []string) bool {
	for i, t := range toks {
		if t == "__proto__" || (t == "prototype" && i > 0 && toks[i-1] == "constructor") {
			return true
		}
	}
	return false
}
