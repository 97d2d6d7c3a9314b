// Runs the reference TypeScript client (@ag-ui/client HttpAgent) against an
// AG-UI endpoint and prints one JSON report on stdout. Driven by
// ../httpagent_test.go, which starts the Go demo agent and checks the report.
//
// Usage: node httpagent.mjs http://127.0.0.1:PORT/agent
import { HttpAgent } from "@ag-ui/client";
import { captureWarnings } from "./warnings.mjs";

const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: node httpagent.mjs URL\n");
  process.exit(2);
}

const warnings = captureWarnings();

async function run(agent, params, { abortAfterContent } = {}) {
  const report = { types: [], rejection: null, runError: null, finished: null, result: null };
  let contents = 0;
  const subscriber = {
    onEvent({ event }) {
      report.types.push(event.type);
      if (abortAfterContent && event.type === "TEXT_MESSAGE_CONTENT" && ++contents === abortAfterContent) {
        agent.abortRun();
      }
    },
    onRunFinishedEvent(p) {
      report.finished = {
        outcome: p.outcome,
        result: p.result ?? null,
        pendingToolCallIds: p.pendingToolCallIds ?? null,
        interrupts: p.interrupts ?? null,
      };
    },
    onRunErrorEvent({ event }) {
      report.runError = { message: event.message, code: event.code ?? null };
    },
  };
  try {
    const { result, newMessages } = await agent.runAgent(params, subscriber);
    report.result = result ?? null;
    report.newMessageIds = newMessages.map((m) => m.id);
  } catch (err) {
    report.rejection = String(err && err.stack ? err.stack : err);
  }
  report.messages = agent.messages;
  report.state = agent.state;
  report.pendingInterrupts = agent.pendingInterrupts;
  return report;
}

function newAgent(name, text) {
  return new HttpAgent({
    url,
    threadId: `thread-${name}`,
    initialMessages: [{ id: `user-${name}`, role: "user", content: text }],
    initialState: {},
  });
}

const report = {};

{
  const agent = newAgent("plain", "What is the weather in Paris?");
  report.plain = await run(agent, {});
}

{
  const agent = newAgent("interrupt", "Book a table, but interrupt for approval.");
  report.interrupt = await run(agent, {});
  const pending = agent.pendingInterrupts ?? [];
  report.resume = await run(agent, {
    resume: pending.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
  });
}

{
  const agent = newAgent("fail", "Please fail.");
  report.fail = await run(agent, {});
}

{
  const agent = newAgent("abort", "Answer slow, please.");
  report.abort = await run(agent, {}, { abortAfterContent: 3 });
}

report.warnings = warnings;
process.stdout.write(JSON.stringify(report) + "\n");
