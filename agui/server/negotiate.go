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
	encodingNone encoding = iota // nothing we serve is admitted: 406
	encodingSSE
	// encodingProtobuf arrives with the protobuf binding.
)

// negotiate picks the response encoding from the request's Accept header
// values, as the AG-UI HTTP bindings specify: a media type is admitted when
// the most specific range that matches it has q > 0 (a wildcard admits too),
// and relative quality values between the two types are not consulted. An
// absent or empty Accept admits SSE only.
//
// The protocol prefers protobuf whenever it is admitted; this server does not
// serve protobuf yet, so a request that admits SSE gets SSE whatever else it
// admits, and one that admits only protobuf gets encodingNone (406).
func negotiate(accept []string) encoding {
	header := strings.TrimSpace(strings.Join(accept, ","))
	if header == "" {
		return encodingSSE
	}
	if admits(header, "text", "event-stream") {
		return encodingSSE
	}
	return encodingNone
}

// admits reports whether the Accept header admits typ/sub.
func admits(header, typ, sub string) bool {
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
	return best >= 0 && q > 0
}
