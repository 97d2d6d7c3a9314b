// Package protover holds what the client and the server share about
// protocol versions: the MAJOR.MINOR[.PATCH] grammar and its numeric order,
// how a server answers the version a consumer declares, and the downgrade
// from 1.1 to 1.0 (the members 1.1 added, removed from events and inputs).
//
// Downgrading is written by hand, beside the generated code, because it is
// a decision about peers rather than a fact of the wire: the schema says
// what 1.1 is, this package says what a party does for a peer that is not.
package protover

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// Version is a dotted version of up to three numeric components; missing
// components are zero, so "1.0" equals "1.0.0".
type Version [3]int

// Well-known versions.
var (
	V0_0_39 = Version{0, 0, 39}
	V0_0_57 = Version{0, 0, 57}
	V1_0    = Version{1, 0, 0}
	V1_1    = Version{1, 1, 0}
	// Current is agui.ProtocolVersion, the version this SDK speaks.
	Current = MustParse(agui.ProtocolVersion)
)

// Parse reads MAJOR.MINOR or MAJOR.MINOR.PATCH, each a run of ASCII digits.
func Parse(s string) (Version, error) {
	var v Version
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("protocol version %q is not MAJOR.MINOR[.PATCH]", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || !digits(p) {
			return v, fmt.Errorf("protocol version %q is not MAJOR.MINOR[.PATCH]", s)
		}
		v[i] = n
	}
	return v, nil
}

// MustParse is Parse for constants; it panics on a malformed version.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Cmp orders versions numerically, component by component.
func (v Version) Cmp(w Version) int {
	for i := range v {
		if v[i] != w[i] {
			if v[i] < w[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// String is MAJOR.MINOR, with .PATCH only when it is not zero: the form the
// protocol declares ("1.0", "1.1"), and the pre-1.0 package versions whole.
func (v Version) String() string {
	if v[2] != 0 {
		return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	}
	return fmt.Sprintf("%d.%d", v[0], v[1])
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ProducerWarning compares a RUN_STARTED's protocolVersion with the version
// own that the consumer speaks and returns the warning the reference gives,
// or "" (same or older producer). The grammar is the spec's MAJOR.MINOR.
func ProducerWarning(declared string, own Version) string {
	if declared == own.String() {
		return ""
	}
	maj, min, ok := strings.Cut(declared, ".")
	if !ok || !digits(maj) || !digits(min) {
		return "the producer declared protocol version '" + declared + "', which this client cannot interpret"
	}
	a, _ := strconv.Atoi(maj)
	b, _ := strconv.Atoi(min)
	if a > own[0] || (a == own[0] && b > own[1]) {
		return "the producer speaks protocol " + declared + "; this client speaks " + own.String() +
			". Unrecognised material will be stripped with warnings"
	}
	return "" // an older producer: nothing to say
}

// Served is how a server answers a consumer's declared version.
type Served struct {
	// Version is the version of the stream the consumer gets, declared on
	// its RUN_STARTED.
	Version Version
	// Downgrade is set when the stream is translated to 1.0 for a consumer
	// that declared 1.0 or older, or nothing (StripEvent on every event).
	Downgrade bool
	// Warning, when not empty, is logged: a newer minor, or a declaration
	// that does not parse.
	Warning string
}

// ErrNewerMajor is the refusal of a consumer of a newer major version.
type ErrNewerMajor struct{ Declared string }

func (e *ErrNewerMajor) Error() string {
	return "the consumer declares protocol version " + e.Declared + "; this endpoint speaks " +
		Current.String() + " and cannot serve another major version"
}

// Serve decides what a server speaks to a consumer that declared declared
// (nil: nothing, a consumer from before versioning).
//
//   - nothing, 1.0 or older: a 1.0 stream (the 1.1 members removed, lossy:
//     the caller warns once per event that lost any), declared "1.0";
//   - the current version: as is;
//   - a newer minor of the same major: the current version, with a warning
//     (the consumer strips nothing, there is nothing newer than it knows);
//   - a newer major: refused (*ErrNewerMajor);
//   - a declaration that does not parse: the current version, with a warning,
//     as a consumer treats a producer it cannot interpret.
func Serve(declared *string) (Served, error) {
	if declared == nil {
		return Served{Version: V1_0, Downgrade: true}, nil
	}
	v, err := Parse(*declared)
	if err != nil {
		return Served{Version: Current, Warning: "the consumer declared protocol version '" + *declared +
			"', which this endpoint cannot interpret; serving " + Current.String()}, nil
	}
	switch {
	case v[0] > Current[0]:
		return Served{}, &ErrNewerMajor{Declared: *declared}
	case v.Cmp(V1_1) < 0:
		return Served{Version: V1_0, Downgrade: true}, nil
	case v[0] == Current[0] && v[1] > Current[1]:
		return Served{Version: Current, Warning: "the consumer speaks protocol " + *declared +
			"; this endpoint speaks " + Current.String() + " and serves that"}, nil
	}
	return Served{Version: Current}, nil
}

const member = "encryptedValueType"

// StripEvent returns ev without the members protocol 1.1 added, and the JSON
// pointers (into the event) of those it removed. ev is not modified: an
// event that loses something is copied, as deep as the loss goes; one that
// loses nothing is returned itself, with nil.
func StripEvent(ev agui.Event) (agui.Event, []string) {
	switch e := ev.(type) { //agui:nonexhaustive only the events that carry what 1.1 added
	case *agui.ReasoningEncryptedValue:
		if e.EncryptedValueType == nil {
			return ev, nil
		}
		c := *e
		c.EncryptedValueType = nil
		return &c, []string{"/" + member}
	case *agui.MessagesSnapshot:
		msgs, lost := StripMessages(e.Messages, "/messages")
		if lost == nil {
			return ev, nil
		}
		c := *e
		c.Messages = msgs
		return &c, lost
	case *agui.RunStarted:
		if e.Input == nil {
			return ev, nil
		}
		in, lost := stripInput(e.Input, "/input")
		if lost == nil {
			return ev, nil
		}
		c := *e
		c.Input = in
		return &c, lost
	}
	return ev, nil
}

// StripInput is StripEvent for a RunAgentInput.
func StripInput(in *agui.RunAgentInput) (*agui.RunAgentInput, []string) {
	return stripInput(in, "")
}

func stripInput(in *agui.RunAgentInput, at string) (*agui.RunAgentInput, []string) {
	msgs, lost := StripMessages(in.Messages, at+"/messages")
	if lost == nil {
		return in, nil
	}
	c := *in
	c.Messages = msgs
	return &c, lost
}

// StripMessages is StripEvent for a message list at the pointer at: the list
// is copied when any message loses a member, and so is each such message.
func StripMessages(msgs []agui.Message, at string) ([]agui.Message, []string) {
	var out []agui.Message
	var lost []string
	for i, m := range msgs {
		c, l := stripMessage(m, fmt.Sprintf("%s/%d", at, i))
		if l == nil {
			continue
		}
		if out == nil {
			out = append([]agui.Message(nil), msgs...)
		}
		out[i] = c
		lost = append(lost, l...)
	}
	if lost == nil {
		return msgs, nil
	}
	return out, lost
}

func stripMessage(m agui.Message, at string) (agui.Message, []string) {
	p := at + "/" + member
	switch m := m.(type) {
	case *agui.DeveloperMessage:
		if m.EncryptedValueType != nil {
			c := *m
			c.EncryptedValueType = nil
			return &c, []string{p}
		}
	case *agui.SystemMessage:
		if m.EncryptedValueType != nil {
			c := *m
			c.EncryptedValueType = nil
			return &c, []string{p}
		}
	case *agui.UserMessage:
		if m.EncryptedValueType != nil {
			c := *m
			c.EncryptedValueType = nil
			return &c, []string{p}
		}
	case *agui.ToolMessage:
		if m.EncryptedValueType != nil {
			c := *m
			c.EncryptedValueType = nil
			return &c, []string{p}
		}
	case *agui.ReasoningMessage:
		if m.EncryptedValueType != nil {
			c := *m
			c.EncryptedValueType = nil
			return &c, []string{p}
		}
	case *agui.AssistantMessage:
		var lost []string
		if m.EncryptedValueType != nil {
			lost = append(lost, p)
		}
		var calls []agui.ToolCall
		for i, tc := range m.ToolCalls {
			if tc.EncryptedValueType == nil {
				continue
			}
			if calls == nil {
				calls = append([]agui.ToolCall(nil), m.ToolCalls...)
			}
			calls[i].EncryptedValueType = nil
			lost = append(lost, fmt.Sprintf("%s/toolCalls/%d/%s", at, i, member))
		}
		if lost == nil {
			return m, nil
		}
		c := *m
		c.EncryptedValueType = nil
		if calls != nil {
			c.ToolCalls = calls
		}
		return &c, lost
	case *agui.ActivityMessage:
	}
	return m, nil
}
