package client

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agui-go/sdk/agui"
)

// defaultMaxVersion is what the reference client assumes for a peer when
// told nothing: its own package version.
const defaultMaxVersion = "1.0.0"

// version is a dotted version of up to three numeric components; missing
// components are zero, so "1.0" equals "1.0.0".
type version [3]int

func parseVersion(s string) (version, error) {
	var v version
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("agui client: protocol version %q is not MAJOR.MINOR[.PATCH]", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || !digits(p) {
			return v, fmt.Errorf("agui client: protocol version %q is not MAJOR.MINOR[.PATCH]", s)
		}
		v[i] = n
	}
	return v, nil
}

func (v version) cmp(w version) int {
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

var (
	v1_0    = version{1, 0, 0}
	v0_0_39 = version{0, 0, 39}
	v0_0_57 = version{0, 0, 57}
)

// era is what a maxProtocolVersion switches on, decided once per client.
type era struct {
	declare bool // send protocolVersion on the input (peer ≥ 1.0)
	flatten bool // 0.0.39: content parts flattened to text, no parentRunId
	noSub   bool // ≤ 0.0.57: no subagents on either direction
}

func eraOf(v version) era {
	return era{
		declare: v.cmp(v1_0) >= 0,
		flatten: v.cmp(v0_0_39) <= 0,
		noSub:   v.cmp(v0_0_57) <= 0,
	}
}

// checkProducerVersion compares a RUN_STARTED's protocolVersion with ours
// and returns the warning the reference gives, or "".
func checkProducerVersion(declared string) string {
	if declared == agui.ProtocolVersion {
		return ""
	}
	maj, min, ok := strings.Cut(declared, ".")
	if !ok || !digits(maj) || !digits(min) {
		return "the producer declared protocol version '" + declared + "', which this client cannot interpret"
	}
	a, _ := strconv.Atoi(maj)
	b, _ := strconv.Atoi(min)
	if a > 1 || (a == 1 && b > 0) {
		return "the producer speaks protocol " + declared + "; this client speaks " + agui.ProtocolVersion +
			". Unrecognised material will be stripped with warnings"
	}
	return "" // an older producer: nothing to say
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
