// Runs the reference TypeScript client (@ag-ui/client HttpAgent) once
// against an AG-UI endpoint and prints one JSON report on stdout: the event
// types delivered, the rejection if any, the final messages and every
// warning the client printed. Driven by ../read11_test.go.
//
// Usage: node read.mjs http://127.0.0.1:PORT/agent
import { HttpAgent } from "@ag-ui/client";
import { captureWarnings } from "./warnings.mjs";

const url = process.argv[2];
const warnings = captureWarnings();

const agent = new HttpAgent({ url, threadId: "t", initialMessages: [{ id: "u", role: "user", content: "hi" }] });
const report = { types: [], rejection: null, events: [] };
try {
  await agent.runAgent({ runId: "r" }, {
    onEvent({ event }) {
      report.types.push(event.type);
      report.events.push(event);
    },
  });
} catch (err) {
  report.rejection = String(err && err.stack ? err.stack : err);
}
report.messages = agent.messages;
report.warnings = warnings;
process.stdout.write(JSON.stringify(report) + "\n");
