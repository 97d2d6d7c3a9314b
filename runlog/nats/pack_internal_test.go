package natslog

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// packAll packs events as a pipe does: the first one alone, then each
// into the same payload while it fits. It returns the payload and how many
// events went in.
func packAll(events [][]byte) ([]byte, int) {
	if len(events) == 0 {
		return nil, 0
	}
	buf, n := append([]byte(nil), events[0]...), 1
	for _, e := range events[1:] {
		next, ok := pack(buf, n, e)
		if !ok {
			break
		}
		buf, n = next, n+1
	}
	return buf, n
}

func TestPackUnpack(t *testing.T) {
	for _, c := range []struct {
		name   string
		events [][]byte
		fit    int
	}{
		{"two", [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)}, 2},
		{"empty events", [][]byte{{}, {}, []byte(`x`)}, 3},
		{"many small", bytes.Split(bytes.Repeat([]byte("{}|"), 1000), []byte("|"))[:1000], 1000},
		{"a long one does not fit", [][]byte{[]byte(`{}`), make([]byte, maxPack)}, 1},
		{"up to the bound", [][]byte{make([]byte, maxPack/2), make([]byte, maxPack/2-30), make([]byte, 20)}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf, n := packAll(c.events)
			if n != c.fit {
				t.Fatalf("%d events packed, want %d", n, c.fit)
			}
			if n == 1 {
				return // a payload of one event is the event
			}
			if len(buf) > maxPack {
				t.Fatalf("a packed payload of %d bytes, past maxPack", len(buf))
			}
			var got [][]byte
			if err := unpack(buf, uint64(n), func(i uint64, e []byte) bool {
				if i != uint64(len(got)) {
					t.Fatalf("event %d given as %d", len(got), i)
				}
				got = append(got, e)
				return true
			}); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if !bytes.Equal(got[i], c.events[i]) {
					t.Fatalf("event %d: %q, want %q", i, got[i], c.events[i])
				}
			}
		})
	}
}

// A payload that does not hold what its header counts is an error, never a
// panic or a slice past the payload.
func TestUnpackBad(t *testing.T) {
	good, _ := packAll([][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)})
	for _, c := range []struct {
		name string
		data []byte
		n    uint64
	}{
		{"fewer than counted", good, 3},
		{"more than counted", good, 1},
		{"length past the end", []byte{0x7f, 'x'}, 1},
		{"truncated uvarint", []byte{0x80}, 1},
		{"empty", nil, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := unpack(c.data, c.n, func(uint64, []byte) bool { return true })
			if !errors.Is(err, errBadPack) {
				t.Fatalf("unpack: %v, want errBadPack", err)
			}
		})
	}
	// Stopping early is not an error.
	if err := unpack(good, 2, func(uint64, []byte) bool { return false }); err != nil {
		t.Fatal(err)
	}
}

// unpack never panics, and what pack made unpacks to what went in.
func FuzzUnpack(f *testing.F) {
	good, _ := packAll([][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)})
	f.Add(good, uint64(2), []byte(`{}`))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, uint64(1), []byte{})
	f.Add([]byte{}, uint64(0), []byte(`x`))
	f.Fuzz(func(t *testing.T, data []byte, n uint64, extra []byte) {
		_ = unpack(data, min(n, 1<<20), func(_ uint64, e []byte) bool {
			if len(e) > len(data) {
				t.Fatalf("an event of %d bytes from a payload of %d", len(e), len(data))
			}
			return true
		})
		events := [][]byte{data, extra, data}
		buf, k := packAll(events)
		if k == 1 {
			return
		}
		i := 0
		if err := unpack(buf, uint64(k), func(_ uint64, e []byte) bool {
			if !bytes.Equal(e, events[i]) {
				t.Fatalf("event %d: %q, want %q", i, e, events[i])
			}
			i++
			return true
		}); err != nil || i != k {
			t.Fatal(fmt.Sprint(i, " events of ", k, ": ", err))
		}
	})
}
