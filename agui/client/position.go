package client

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// Position is where a delivered event stands in its run: the server's
// number of the frame it came from and its place among the events that
// frame expanded into. A program that keeps the position of the last event
// it handled can pick the run up there after losing its process, not only
// its connection: [Client.Resume] delivers what follows it.
//
// Only a server with durable runs numbers its frames (SSE ids); from any
// other, Seq is 0 and the position says nothing a resume could use.
type Position struct {
	// Seq is the frame's sequence number, the SSE id a durable run sends
	// with it (1 for the run's first frame); 0 when the frame carried none,
	// or one that is not a decimal number.
	Seq uint64
	// Part is the event's index among the events its frame delivered: 0
	// but when chunk expansion turned one frame into several events.
	Part int
}

// String writes the position as "Seq", or "Seq.Part" when Part is not 0,
// the form ParsePosition reads.
func (p Position) String() string {
	s := strconv.FormatUint(p.Seq, 10)
	if p.Part != 0 {
		s += "." + strconv.Itoa(p.Part)
	}
	return s
}

// MarshalText writes the form String writes, so that a Position stored as
// JSON or in a flag is one string.
func (p Position) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads the form String writes.
func (p *Position) UnmarshalText(b []byte) error {
	q, err := ParsePosition(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// ErrPosition is matched (errors.Is) by the error of a position that does
// not parse.
var ErrPosition = errors.New("agui client: not a position")

// ParsePosition reads "Seq" or "Seq.Part", both decimal numbers.
func ParsePosition(s string) (Position, error) {
	seq, part, dotted := strings.Cut(s, ".")
	n, err := strconv.ParseUint(seq, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("%w: %q", ErrPosition, s)
	}
	p := Position{Seq: n}
	if dotted {
		k, err := strconv.Atoi(part)
		if err != nil || k < 0 {
			return Position{}, fmt.Errorf("%w: %q", ErrPosition, s)
		}
		p.Part = k
	}
	return p, nil
}

// After reports whether p comes after q in their run.
func (p Position) After(q Position) bool {
	return p.Seq > q.Seq || p.Seq == q.Seq && p.Part > q.Part
}

// Delivery is one event as a run delivers it, with its position.
type Delivery struct {
	Event agui.Event
	Pos   Position
}
