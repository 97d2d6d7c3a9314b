package server

import "testing"

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`agent error: the weather service is down`, `agent error: the weather service is down`},
		{`Post "https://api.openai.com/v1/chat/completions": EOF`, `Post "<url>": EOF`},
		{`dial tcp 127.0.0.1:9199: connect: connection refused`, `dial tcp <address>: connect: connection refused`},
		{`dial tcp [::1]:9199: connect: connection refused`, `dial tcp <address>: connect: connection refused`},
		{`dial tcp [fe80::1%eth0]:443: i/o timeout`, `dial tcp <address>: i/o timeout`},
		{`no route to fe80::1 or 2001:db8:0:0:0:0:0:1`, `no route to <address> or <address>`},
		{`listening on ::1`, `listening on <address>`},
		{`read tcp 10.0.0.5:8080->10.0.0.9:51234: read: connection reset by peer`, `read tcp <address>-><address>: read: connection reset by peer`},
		{`dial tcp postgres:5432: connect: connection refused`, `dial tcp <address>: connect: connection refused`},
		{`proxyconnect tcp: dial tcp proxy.internal.corp:3128: i/o timeout`, `proxyconnect tcp: dial tcp <address>: i/o timeout`},
		{`dial tcp: lookup llm.internal.corp on 10.0.0.2:53: no such host`, `dial tcp: lookup <address> on <address>: no such host`},
		{`nats: no servers available for connection (nats://nats-0.nats:4222)`, `nats: no servers available for connection (<url>)`},
		{`connect to localhost:11434 failed`, `connect to <address> failed`},
		// Not addresses: kept.
		{`invalid RunAgentInput: at /messages/0: unknown role "narrator"`, `invalid RunAgentInput: at /messages/0: unknown role "narrator"`},
		{`run cancelled: run deadline exceeded`, `run cancelled: run deadline exceeded`},
		{`quota exhausted at 12:30:45 (3 left)`, `quota exhausted at 12:30:45 (3 left)`},
		{`TEXT_MESSAGE_CONTENT breaks rule not-open: message "msg-2" is not open [open: messages={"msg-1"}]`, `TEXT_MESSAGE_CONTENT breaks rule not-open: message "msg-2" is not open [open: messages={"msg-1"}]`},
	} {
		if got := redact(tc.in); got != tc.want {
			t.Errorf("redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
