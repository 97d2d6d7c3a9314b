package client

import (
	"github.com/agui-go/sdk/agui"
	"github.com/agui-go/sdk/internal/protover"
)

// era is what the two versions of a client switch on, decided once per
// client: its own (WithProtocolVersion, default agui.ProtocolVersion) and the
// newest its peer speaks (WithMaxProtocolVersion, default its own).
type era struct {
	own     protover.Version // what the client speaks: producer warnings compare with it
	declare bool             // send protocolVersion on the input (peer ≥ 1.0)
	// declared is the version the input declares: the older of the two,
	// since the input is translated to it.
	declared string
	flatten  bool // 0.0.39: content parts flattened to text, no parentRunId
	noSub    bool // ≤ 0.0.57: no subagents on either direction
	// v10Out: the input leaves without the members 1.1 added (a 1.0 client,
	// or a peer pinned below 1.1); v10In: so do incoming events (a 1.0
	// client strips what it does not know, with a warning).
	v10Out, v10In bool
}

func eraOf(own, peer protover.Version) era {
	declared := own
	if peer.Cmp(own) < 0 {
		declared = peer
	}
	return era{
		own:      own,
		declare:  peer.Cmp(protover.V1_0) >= 0,
		declared: declared.String(),
		flatten:  peer.Cmp(protover.V0_0_39) <= 0,
		noSub:    peer.Cmp(protover.V0_0_57) <= 0,
		v10Out:   declared.Cmp(protover.V1_1) < 0,
		v10In:    own.Cmp(protover.V1_1) < 0,
	}
}

// defaultEra is a client of this SDK's version talking to a peer of the same.
var defaultEra = eraOf(protover.Current, protover.Current)

// parseOwn checks a version a client may speak: 1.0 up to this SDK's.
func parseOwn(v string) (protover.Version, error) {
	ver, err := protover.Parse(v)
	if err != nil {
		return ver, err
	}
	if ver.Cmp(protover.V1_0) < 0 || ver.Cmp(protover.Current) > 0 {
		return ver, &versionError{v}
	}
	return ver, nil
}

type versionError struct{ v string }

func (e *versionError) Error() string {
	return "agui client: cannot speak protocol version " + e.v + "; 1.0 to " + agui.ProtocolVersion + " are spoken"
}

// checkProducerVersion compares a RUN_STARTED's protocolVersion with the
// client's own version and returns the warning the reference gives, or "".
func (e era) checkProducerVersion(declared string) string {
	return protover.ProducerWarning(declared, e.own)
}
