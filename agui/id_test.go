package agui

import (
	"regexp"
	"testing"
)

// uuidV4 is the canonical text form of a version 4, variant 10 UUID.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !uuidV4.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

func TestNewIDAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	if n := testing.AllocsPerRun(100, func() { _ = NewID() }); n > 1 {
		t.Errorf("NewID allocates %v times; want 1 (the string)", n)
	}
}
