// Connects the reference TypeScript client to a thread of an agui-go server
// and prints one JSON report on stdout. @ag-ui/client 1.0 has connectAgent,
// the whole client pipeline (verifier, chunk transform, reducer) over a
// stream the agent's connect() returns, but HttpAgent leaves connect()
// unimplemented: the spec defines no connect route. ThreadAgent below is
// what a TypeScript app writes to use agui-go's, GET {agent}/threads/{id}/events.
// Driven by ../threads_test.go.
//
// Usage: node connect.mjs http://127.0.0.1:PORT/agent THREAD_ID
//
// It prints "live", a line on stdout, when the stream
// reaches a run that is still going (the second RUN_STARTED: the first is
// the replayed history), so that the test can let that run go on; the
// report follows on the last line.
import { HttpAgent, runHttpRequest, transformHttpEventStream } from "@ag-ui/client";
import { captureWarnings } from "./warnings.mjs";

const [url, threadId] = process.argv.slice(2);
if (!url || !threadId) {
  process.stderr.write("usage: node connect.mjs URL THREAD_ID\n");
  process.exit(2);
}

const warnings = captureWarnings();

class ThreadAgent extends HttpAgent {
  connect() {
    this.abortController = new AbortController();
    // The client speaks 1.0: the server translates the thread for it.
    const events = `${this.url}/threads/${encodeURIComponent(this.threadId)}/events?protocolVersion=1.0`;
    const init = { method: "GET", headers: { ...this.headers, Accept: "text/event-stream" }, signal: this.abortController.signal };
    return transformHttpEventStream(runHttpRequest(() => this.fetch(events, init)), this.debugLogger);
  }
}

const agent = new ThreadAgent({ url, threadId });
const report = { types: [], runIds: [], rejection: null, finished: [] };
let started = 0;
try {
  await agent.connectAgent({}, {
    onEvent({ event }) {
      report.types.push(event.type);
      if (event.type === "RUN_STARTED") {
        report.runIds.push(event.runId);
        if (++started === 2) process.stdout.write("live\n");
      }
    },
    onRunFinishedEvent(p) {
      report.finished.push({ outcome: p.outcome ?? null, interrupts: p.interrupts ?? null });
    },
  });
} catch (err) {
  report.rejection = String(err && err.stack ? err.stack : err);
}
report.messages = agent.messages;
report.state = agent.state;
report.pendingInterrupts = agent.pendingInterrupts;
report.warnings = warnings;
process.stdout.write(JSON.stringify(report) + "\n");
