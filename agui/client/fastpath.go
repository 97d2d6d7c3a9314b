package client

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/agui-go/sdk/agui"
)

// The hot path. A streamed answer is almost entirely TEXT_MESSAGE_CONTENT
// frames of one exact shape, the one every encoder we know writes:
//
//	{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"…"}
//
// or, as SDKs that stamp every event write it (the community Go SDK does
// by default), with a timestamp after the type:
//
//	{"type":"TEXT_MESSAGE_CONTENT","timestamp":1700000000000,"messageId":"…","delta":"…"}
//
// For a frame of exactly that shape whose two strings need no unescaping
// (no backslash, no control byte, valid UTF-8) and whose timestamp is a
// plain run of at most 15 digits, the result of lenient decoding is known
// without running the general decoder: that event, with no warning.
// fastDelta builds it directly, and amortises its allocations: events and
// timestamps come from slabs of 64, delta bytes from a 4 KiB arena, and a
// message id equal to the previous one reuses that string. Anything else
// (another member, another order, whitespace, an escape, a sign, an
// exponent) goes the general way. FuzzFastDelta checks that both ways agree
// on every frame the fast one accepts.
//
// The cost of amortising is retention: an event a program keeps holds its
// slab and arena (about 10 KiB) alive. Strings in an arena are never
// written again once handed out.

const (
	slabEvents = 64
	arenaBytes = 4 << 10
)

type deltaSlab struct {
	events []agui.TextMessageContent
	stamps []int64
	arena  []byte
	lastID string
}

var (
	deltaType = []byte(`{"type":"TEXT_MESSAGE_CONTENT",`)
	deltaTS   = []byte(`"timestamp":`)
	deltaID   = []byte(`"messageId":"`)
	deltaMid  = []byte(`","delta":"`)
)

// maxStampDigits bounds the timestamps the fast path reads: 15 digits stay
// below 2^53, the range the decoder accepts, so no range check is needed.
const maxStampDigits = 15

// stamp reads the digits of a timestamp and the comma after it, returning
// the value and what follows. A leading zero, a sign, a fraction or an
// exponent is not the fast shape.
func stamp(b []byte) (int64, []byte, bool) {
	var n int64
	i := 0
	for ; i < len(b) && i <= maxStampDigits && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if i == 0 || i > maxStampDigits || i == len(b) || b[i] != ',' || b[0] == '0' && i > 1 {
		return 0, nil, false
	}
	return n, b[i+1:], true
}

// plain reports whether the bytes of a JSON string body decode to
// themselves.
func plain(s []byte) bool {
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	return ascii || utf8.Valid(s)
}

// fastDelta returns the event frame decodes to, or nil when frame is not of
// the fast shape.
func (s *deltaSlab) fastDelta(frame []byte) *agui.TextMessageContent {
	rest, ok := bytes.CutPrefix(frame, deltaType)
	if !ok {
		return nil
	}
	var ts int64
	hasTS := false
	if after, ok := bytes.CutPrefix(rest, deltaTS); ok {
		if ts, rest, hasTS = stamp(after); !hasTS {
			return nil
		}
	}
	if rest, ok = bytes.CutPrefix(rest, deltaID); !ok {
		return nil
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return nil
	}
	id := rest[:i]
	rest, ok = bytes.CutPrefix(rest[i:], deltaMid)
	if !ok {
		return nil
	}
	j := bytes.IndexByte(rest, '"')
	if j < 0 || len(rest) != j+2 || rest[j+1] != '}' {
		return nil
	}
	delta := rest[:j]
	// An id equal to the last one passed the check when it was stored.
	sameID := string(id) == s.lastID && s.lastID != ""
	if !sameID && !plain(id) || !plain(delta) {
		return nil
	}
	if len(s.events) == 0 {
		s.events = make([]agui.TextMessageContent, slabEvents)
	}
	ev := &s.events[0]
	s.events = s.events[1:]
	if !sameID {
		s.lastID = string(id)
	}
	ev.MessageID = s.lastID
	ev.Delta = s.intern(delta)
	if hasTS {
		if len(s.stamps) == 0 {
			s.stamps = make([]int64, slabEvents)
		}
		s.stamps[0] = ts
		ev.Timestamp = &s.stamps[0]
		s.stamps = s.stamps[1:]
	}
	return ev
}

// intern copies b into the arena and returns it as a string.
func (s *deltaSlab) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaBytes/8 {
		return string(b)
	}
	if cap(s.arena)-len(s.arena) < len(b) {
		s.arena = make([]byte, 0, arenaBytes)
	}
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return unsafe.String(&s.arena[start], len(b))
}
