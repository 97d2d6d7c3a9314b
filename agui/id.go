package agui

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a fresh random UUID (version 4, RFC 9562) in its canonical
// lower-case text form, such as "3b241101-e2bb-4255-8caf-4136c566a962".
//
// It is the one id maker of the SDK: the client's thread and run ids, the
// messageId the compatibility boundary gives a retired THINKING_* event, and
// the server's message, tool call, interrupt and subagent ids all come from
// it. The reference SDKs mint UUID v4s for the same ids, so a peer that
// expects that shape gets it. The bits come from crypto/rand, so ids made on
// different machines do not collide and cannot be guessed from one another.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])  // crypto/rand.Read never returns an error (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10 (RFC 9562)
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
