// Reads one case per line on stdin, {"messages":[...],"state":...,"events":[...]},
// and writes one line per case with what the reference client's reducer
// (@ag-ui/client 1.0.0 defaultApplyEvents, no subscribers) ends with:
// {"messages":[...],"state":...,"warnings":[...]} or {"error":"..."} when it
// throws. The events are applied as given: no chunk expansion, no verification.
import { defaultApplyEvents } from "@ag-ui/client";
import { from } from "rxjs";
import { createInterface } from "node:readline";

let warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));

async function reduceAll(c) {
  warnings = [];
  const agent = { messages: structuredClone(c.messages), state: structuredClone(c.state), pendingInterrupts: [] };
  const input = { threadId: "t", runId: "r", messages: structuredClone(c.messages), state: structuredClone(c.state), tools: [], context: [] };
  let messages = agent.messages;
  let state = agent.state;
  try {
    await new Promise((resolve, reject) => {
      defaultApplyEvents(input, from(c.events), agent, []).subscribe({
        next: (m) => {
          if (m.messages !== undefined) messages = m.messages;
          if (m.state !== undefined) state = m.state;
        },
        error: reject,
        complete: resolve,
      });
    });
  } catch (err) {
    return { error: String(err?.message ?? err) };
  }
  return { messages, state, warnings, pendingInterrupts: agent.pendingInterrupts };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(await reduceAll(JSON.parse(line))) + "\n");
}
