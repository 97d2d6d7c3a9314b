package threads

import "github.com/agui-go/sdk/agui"

// Bounds bound one thread's record, as every store applies them after each
// update, so that a thread over its bound keeps the same newest messages
// whatever keeps it. A zero field takes its default (that of
// [MemoryOptions]).
type Bounds struct {
	// MaxMessages and MaxBytes bound the conversation: the number of its
	// messages and the size of their JSON encoding. Defaults 1,000 and 1
	// MiB.
	MaxMessages int
	MaxBytes    int
	// MaxRuns bounds the runs the record lists. Default 1,000.
	MaxRuns int
}

// Trim applies b to r, oldest first, and returns the JSON size of the
// messages it keeps. Past MaxRuns the oldest runs are dropped and
// r.DroppedRuns counts them. Past MaxMessages or MaxBytes the oldest
// messages are dropped, and with them tool messages left at the front
// without their call; r.DroppedMessages counts them (the marker that the
// thread kept its newest messages only). A message larger than MaxBytes on
// its own is dropped too, so the bounds hold exactly. Trim never fails: a
// message that does not encode counts as empty.
func (b Bounds) Trim(r *Record) int {
	var scratch []byte
	return b.trim(r, func(m agui.Message) int {
		var n int
		n, scratch = sizeOf(m, scratch)
		return n
	})
}

func (b Bounds) withDefaults() Bounds {
	if b.MaxMessages <= 0 {
		b.MaxMessages = defaultMaxMessages
	}
	if b.MaxBytes <= 0 {
		b.MaxBytes = defaultMaxBytes
	}
	if b.MaxRuns <= 0 {
		b.MaxRuns = defaultMaxRuns
	}
	return b
}

func (b Bounds) trim(r *Record, size func(agui.Message) int) int {
	b = b.withDefaults()
	if n := len(r.Runs) - b.MaxRuns; n > 0 {
		r.Runs = append(r.Runs[:0:0], r.Runs[n:]...)
		r.DroppedRuns += n
	}
	sizes := make([]int, len(r.Messages))
	total := 0
	for i, msg := range r.Messages {
		sizes[i] = size(msg)
		total += sizes[i]
	}
	drop := 0
	for drop < len(r.Messages) && (len(r.Messages)-drop > b.MaxMessages || total > b.MaxBytes) {
		total -= sizes[drop]
		drop++
	}
	if drop > 0 {
		// A tool message whose call was dropped would stand alone.
		for drop < len(r.Messages) && r.Messages[drop].Role() == agui.RoleTool {
			total -= sizes[drop]
			drop++
		}
		r.Messages = append(r.Messages[:0:0], r.Messages[drop:]...)
		r.DroppedMessages += drop
	}
	return total
}

// sizeOf is the size of msg's JSON encoding, encoded into scratch (returned
// for reuse, unless one large message grew it past 64 KiB).
func sizeOf(msg agui.Message, scratch []byte) (int, []byte) {
	if msg == nil {
		return 0, scratch
	}
	b, err := msg.AppendJSON(scratch[:0])
	if err != nil {
		return 0, scratch
	}
	if cap(b) > 64<<10 {
		return len(b), nil // one large message does not pin its buffer
	}
	return len(b), b[:0]
}
