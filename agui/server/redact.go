package server

import (
	"regexp"
	"strings"
)

// What redact hides. The patterns err on the side of hiding: a file:line
// in a message ("main.go:42") reads as a host:port and goes too, which
// costs the client a detail the log still has, never an address it should
// not see.
var (
	// A URL: a scheme and everything up to a space, a quote or a
	// parenthesis, less the punctuation that ends a sentence.
	urlPattern = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>()]*[^\s"'<>().,;:]`)
	// An IPv6 address in brackets, with or without a port; one written
	// out, with "::" or all eight groups; a lone "::1".
	ipv6Pattern = regexp.MustCompile(`\[[0-9A-Fa-f:.%A-Za-z]*:[0-9A-Fa-f:.%A-Za-z]*\](?::\d{1,5})?` +
		`|\b(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6}\b` +
		`|\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b` +
		`|(?:^|[\s"'(=])::1\b`)
	// An IPv4 address, with or without a port.
	ipv4Pattern = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b`)
	// A host and a port: a dotted name or localhost, or a single label
	// where an address stands in Go's network errors (after a space, a
	// quote, "@" or "/").
	hostPortPattern = regexp.MustCompile(`\b(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{1,5}\b` +
		`|(?:^|[\s"'(@/])[A-Za-z][A-Za-z0-9-]*:\d{2,5}\b`)
	// The name a failed DNS lookup names: "lookup db.internal on …".
	lookupPattern = regexp.MustCompile(`\blookup [^\s:]+`)
)

// redact returns msg with every URL, IP address and host:port replaced by
// "<url>" or "<address>": the summary of a failure the client gets without
// [WithErrorDetail].
func redact(msg string) string {
	if !strings.ContainsAny(msg, ":.") {
		return msg // the common case: nothing that could be an address
	}
	msg = urlPattern.ReplaceAllString(msg, "<url>")
	msg = ipv6Pattern.ReplaceAllStringFunc(msg, keepLead("<address>"))
	msg = ipv4Pattern.ReplaceAllString(msg, "<address>")
	msg = hostPortPattern.ReplaceAllStringFunc(msg, keepLead("<address>"))
	return lookupPattern.ReplaceAllString(msg, "lookup <address>")
}

// keepLead returns a replacer that keeps the one character a pattern
// matched before the address (a space, a quote…), which Go's regexp cannot
// match without consuming.
func keepLead(with string) func(string) string {
	return func(m string) string {
		if m != "" && strings.ContainsRune(" \t\n\"'(=@/", rune(m[0])) {
			return m[:1] + with
		}
		return with
	}
}

// clientMessage is what the client is told of a failure whose whole
// message is msg: msg itself with [WithErrorDetail], its summary otherwise.
func (c *runConfig) clientMessage(msg string) string {
	if c.errorDetail {
		return msg
	}
	return redact(msg)
}
