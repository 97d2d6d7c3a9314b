// Reads one case per line on stdin, {"messages":[...],"state":...,"events":[...]},
// and writes one line per case with what the reference client's reducer
// (@ag-ui/client 1.0.0 defaultApplyEvents, with one subscriber that only
// watches) ends with: {"messages":[...],"state":...,"warnings":[...],
// "pendingInterrupts":[...],"finished":{outcome,pendingToolCallIds,result}}
// (finished: what the last RUN_FINISHED reported to subscribers, or null),
// or {"error":"..."} when it throws. The events are applied as given: no
// chunk expansion, no verification.
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
  let finished = null;
  try {
    await new Promise((resolve, reject) => {
      // A subscriber that only watches: what RUN_FINISHED reports.
      const watcher = {
        onRunFinishedEvent: (p) => {
          finished = { outcome: p.outcome, pendingToolCallIds: p.pendingToolCallIds ?? null, result: p.result ?? null };
        },
      };
      defaultApplyEvents(input, from(c.events), agent, [watcher]).subscribe({
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
  return { messages, state, warnings, pendingInterrupts: agent.pendingInterrupts, finished };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(await reduceAll(JSON.parse(line))) + "\n");
}
