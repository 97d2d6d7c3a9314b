package server

import (
	"strconv"
	"strings"
)

// Media types of the two AG-UI HTTP bindings.
const (
	MediaTypeSSE      = "text/event-stream"
	MediaTypeProtobuf = "application/vnd.ag-ui.event+proto"
)

// encoding is what a response is written in.
type encoding int

const (
	encodingNone     encoding = iota // nothing we serve is admitted: 406
	encodingSSE                      // text/event-stream
	encodingProtobuf                 // application/vnd.ag-ui.event+proto
)

// negotiate picks the response encoding from the request's Accept header
// values, as the AG-UI HTTP bindings specify: a media type is admitted when
// the most specific range that matches it has q > 0, and relative quality
// values between the two types are not consulted. An absent or empty Accept
// admits SSE only.
//
// One choice is ours: protobuf is served when the client names it (a range
// of its own type or application/*) or when SSE is not admitted at all. A
// client that sends only */* gets SSE, which every AG-UI client reads; the
// reference encoder would answer it with protobuf, which a client that never
// asked for it may not read.
func negotiate(accept []string) encoding {
	header := strings.TrimSpace(strings.Join(accept, ","))
	if header == "" {
		return encodingSSE
	}
	pSpec, pOK := admission(header, "application", "vnd.ag-ui.event+proto")
	sse := admits(header, "text", "event-stream")
	switch {
	case pOK && (pSpec > 0 || !sse):
		return encodingProtobuf
	case sse:
		return encodingSSE
	}
	return encodingNone
}

// admits reports whether the Accept header admits typ/sub.
func admits(header, typ, sub string) bool {
	_, ok := admission(header, typ, sub)
	return ok
}

// admission reports whether the Accept header admits typ/sub, and the
// specificity of the range that decided it: 2 for the type itself, 1 for
// typ/*, 0 for */*.
func admission(header, typ, sub string) (int, bool) {
	best, q := -1, 0.0 // specificity of the best matching range, and its q
	for r := range strings.SplitSeq(header, ",") {
		params := strings.Split(r, ";")
		mt := strings.ToLower(strings.TrimSpace(params[0]))
		rt, rs, ok := strings.Cut(mt, "/")
		if !ok {
			continue
		}
		var spec int
		switch {
		case rt == typ && rs == sub:
			spec = 2
		case rt == typ && rs == "*":
			spec = 1
		case rt == "*" && rs == "*":
			spec = 0
		default:
			continue
		}
		rq := 1.0
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || f < 0 {
					f = 0
				}
				rq = f
			}
		}
		if spec > best || (spec == best && rq > q) {
			best, q = spec, rq
		}
	}
	return best, best >= 0 && q > 0
}
