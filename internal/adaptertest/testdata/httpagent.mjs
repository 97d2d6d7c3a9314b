// Drives the reference TypeScript client (@ag-ui/client HttpAgent) through
// two runs of an adapter's example agent: the first declares a frontend
// tool, which the model calls; the second carries the tool's result. Prints
// one JSON report on stdout. Run by main_test.go with the interop harness's
// node_modules (internal/interop/node) as the working directory.
//
// Environment: AGUI_URL, the agent's endpoint.
import { HttpAgent } from "@ag-ui/client";

const warnings = [];
const capture = (level) => (...args) =>
  warnings.push(`${level}: ${args.map((a) => (a instanceof Error ? a.stack : typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`);
console.warn = capture("console.warn");
console.error = capture("console.error");
process.on("warning", (w) => warnings.push(`process warning: ${w.name}: ${w.message}`));

const tools = [{
  name: "confirm_booking",
  description: "Ask the user to confirm a booking.",
  parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
}];

async function run(agent, params) {
  const report = { types: [], rejection: null, runError: null, finished: null };
  const subscriber = {
    onEvent({ event }) { report.types.push(event.type); },
    onRunFinishedEvent(p) {
      report.finished = { outcome: p.outcome, pendingToolCallIds: p.pendingToolCallIds ?? null };
    },
    onRunErrorEvent({ event }) { report.runError = { message: event.message, code: event.code ?? null }; },
  };
  try {
    await agent.runAgent(params, subscriber);
  } catch (err) {
    report.rejection = String(err && err.stack ? err.stack : err);
  }
  report.messages = structuredClone(agent.messages);
  return report;
}

const agent = new HttpAgent({
  url: process.env.AGUI_URL,
  threadId: "thread-interop",
  initialMessages: [{ id: "user-1", role: "user", content: "Book a table in Paris, and tell me the weather." }],
  initialState: { city: "Paris" },
});
const report = {};
report.first = await run(agent, { tools, context: [{ description: "the user's locale", value: "fr-FR" }] });
for (const id of report.first.finished?.pendingToolCallIds ?? []) {
  agent.addMessage({ id: `tool-${id}`, role: "tool", toolCallId: id, content: JSON.stringify({ confirmed: true }) });
}
report.second = await run(agent, { tools });
report.warnings = warnings;
process.stdout.write(JSON.stringify(report) + "\n");
