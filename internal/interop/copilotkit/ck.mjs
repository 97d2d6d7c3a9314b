// Drives CopilotKit's browser client (@copilotkit/core, pinned in
// package.json) against a CopilotKit runtime: node ck.mjs RUNTIME_URL
// TRANSPORT THREAD_URL. It writes one JSON object to stdout: what each step
// saw, and every warning or error the client reported (console.warn,
// console.error, the core's onError), which the Go test wants empty.
//
// The steps, on one thread: info; a run with a tool call and state (its
// first state event a STATE_DELTA); a run that ends in an interrupt and the
// run that resumes it; a run stopped midway; then a new client (a reloaded
// page) connecting to the thread; a reload during a live run, which the
// reloaded page stops; a connect to a thread nothing ran on.
import { CopilotKitCore } from "@copilotkit/core";

const [runtimeUrl, transport, threadUrl] = process.argv.slice(2);
const out = { warnings: [], errors: [], steps: {} };
const report = (kind) => (...args) =>
  out[kind].push(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
console.warn = report("warnings");
console.error = report("errors");
// The core connects to its runtime only in a browser: the page's window.
globalThis.window = { location: { origin: new URL(runtimeUrl).origin } };

const timer = setTimeout(() => {
  out.errors.push("ck.mjs: timed out");
  finish(2);
}, 60_000);

function finish(code) {
  clearTimeout(timer);
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(code);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function newCore() {
  const core = new CopilotKitCore({ runtimeUrl, runtimeTransport: transport });
  core.subscribe({ onError: ({ error, code }) => out.errors.push(`core ${code}: ${error?.message ?? error}`) });
  for (let i = 0; i < 200 && core.runtimeConnectionStatus !== "connected"; i++) await sleep(25);
  if (core.runtimeConnectionStatus !== "connected") throw new Error(`runtime status ${core.runtimeConnectionStatus}`);
  return core;
}

const view = (agent) => ({
  messages: agent.messages.map((m) => ({
    id: m.id,
    role: m.role,
    content: typeof m.content === "string" ? m.content : undefined,
    toolCalls: m.toolCalls?.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    toolCallId: m.toolCallId,
  })),
  state: agent.state,
});

let n = 0;
const userMessage = (content) => ({ id: `u-${transport}-${++n}`, role: "user", content });

try {
  const threadId = `thread-${transport}`;
  const core = await newCore();
  out.steps.info = {
    transport: core.runtimeTransport,
    version: core.runtimeVersion,
    agents: Object.fromEntries(Object.entries(core.agents).map(([id, a]) => [id, { description: a.description, capabilities: a.capabilities }])),
  };
  const agent = core.getAgent("chat");
  agent.threadId = threadId;
  const finished = [];
  agent.subscribe({ onRunFinishedEvent: ({ event }) => finished.push(event) });

  // A run with a server-side tool call, state and streamed text.
  agent.addMessage(userMessage("weather?"));
  await core.runAgent({ agent });
  out.steps.run = view(agent);

  // An interrupt, then the run that answers it.
  agent.addMessage(userMessage("book it"));
  await core.runAgent({ agent });
  const interrupted = finished.at(-1);
  out.steps.interrupt = { outcome: interrupted?.outcome };
  const interruptId = interrupted?.outcome?.interrupts?.[0]?.id;
  // As react-core's useInterrupt resolves one: under the interrupted run's
  // id, which the runtime must not refuse as a reused run id.
  await core.runAgent({ agent, runId: interrupted?.runId, resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });
  out.steps.resume = view(agent);

  // A frontend tool: the agent calls it and ends its run with the call
  // pending (pendingToolCallIds); the client runs the tool and a follow-up
  // run with its result.
  core.addTool({
    name: "confirm_city",
    description: "Asks the user to confirm a city",
    parameters: {
      "~standard": {
        version: 1,
        vendor: "agui-go-test",
        validate: (value) => ({ value }),
        jsonSchema: { input: () => ({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }) },
      },
    },
    handler: async ({ city }) => `yes, ${city}`,
  });
  agent.addMessage(userMessage("ask me"));
  await core.runAgent({ agent });
  out.steps.frontendTool = view(agent);
  // Every run so far ended with a RUN_FINISHED the client took: one its
  // schema refuses is dropped without a word (the client reads a schema
  // error as the stream's end), so only the count shows it.
  out.steps.finished = finished.length;

  // A slow run, stopped once its first words arrived.
  agent.addMessage(userMessage("tell me a long story"));
  let started;
  const firstWords = new Promise((r) => (started = r));
  const sub = agent.subscribe({ onTextMessageContentEvent: () => started() });
  const running = core.runAgent({ agent });
  await firstWords;
  sub.unsubscribe();
  core.stopAgent({ agent });
  await running;
  // The stop is the client's fire-and-forget POST: wait for the thread to
  // have no live run before reloading.
  let live = true;
  for (let i = 0; i < 400 && live; i++) {
    const r = await fetch(threadUrl + "/" + encodeURIComponent(threadId));
    live = r.ok ? Boolean((await r.json()).liveRunId) : true;
    if (live) await sleep(25);
  }
  out.steps.stop = { live, isRunning: agent.isRunning, ...view(agent) };
  const before = view(agent);

  // The reload: a new client on the same thread.
  const core2 = await newCore();
  const agent2 = core2.getAgent("chat");
  agent2.threadId = threadId;
  await core2.connectAgent({ agent: agent2 });
  out.steps.reload = { before, after: view(agent2) };

  // A reload during a live run, stopped from the reloaded page: its
  // connect stream follows the run to its end, which the stop makes.
  agent.addMessage(userMessage("tell me a long story"));
  let started2;
  const firstWords2 = new Promise((r) => (started2 = r));
  const sub2 = agent.subscribe({ onTextMessageContentEvent: () => started2() });
  const running2 = core.runAgent({ agent });
  await firstWords2;
  sub2.unsubscribe();
  const core3 = await newCore();
  const agent4 = core3.getAgent("chat");
  agent4.threadId = threadId;
  const connecting = core3.connectAgent({ agent: agent4 });
  for (let i = 0; i < 400 && agent4.messages.at(-1)?.content !== "Once upon a time"; i++) await sleep(25);
  const followed = agent4.messages.at(-1)?.content === "Once upon a time";
  core3.stopAgent({ agent: agent4 });
  await connecting;
  await running2;
  out.steps.liveReload = { followed, isRunning: agent4.isRunning, firstIsRunning: agent.isRunning, first: view(agent), reloaded: view(agent4) };

  // A connect to a thread nothing ran on: an empty history, no error.
  const agent3 = core2.getAgent("chat");
  agent3.threadId = `fresh-${transport}`;
  await core2.connectAgent({ agent: agent3 });
  out.steps.fresh = view(agent3);
  finish(0);
} catch (e) {
  out.errors.push(`ck.mjs: ${e?.stack ?? e}`);
  finish(1);
}
