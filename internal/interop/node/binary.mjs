// Shows what the reference client (@ag-ui/client 1.0.0 HttpAgent) does with
// a legacy {"type":"binary"} content part toward a current peer, in both
// directions, and prints one JSON report: "incoming" for a RUN_STARTED whose
// input echoes a history holding one (the producer declares 1.0), and
// "outgoing" for a thread whose own history holds one (the request body's
// messages). Each has the messages and the console warnings. Driven by
// ../binary_test.go.
import { HttpAgent } from "@ag-ui/client";

let warnings = [];
console.warn = (...a) => warnings.push(a.map(String).join(" "));

const legacy = {
  id: "u1",
  role: "user",
  content: [{ type: "text", text: "hi" }, { type: "binary", mimeType: "image/png", url: "https://example.com/a.png" }],
};
const sse = (evs) => evs.map((e) => "data: " + JSON.stringify(e) + "\n\n").join("");
const respond = (evs) => async () => new Response(sse(evs), { headers: { "Content-Type": "text/event-stream" } });
const finished = { type: "RUN_FINISHED", threadId: "t", runId: "r" };

async function incoming() {
  warnings = [];
  const started = { type: "RUN_STARTED", threadId: "t", runId: "r", protocolVersion: "1.0", input: { threadId: "t", runId: "r", messages: [legacy] } };
  const agent = new HttpAgent({ url: "http://peer/agent", fetch: respond([started, finished]) });
  await agent.runAgent({});
  return { messages: agent.messages, warnings };
}

async function outgoing() {
  warnings = [];
  let sent;
  const reply = respond([{ type: "RUN_STARTED", threadId: "t", runId: "r", protocolVersion: "1.0" }, finished]);
  const agent = new HttpAgent({
    url: "http://peer/agent",
    initialMessages: [structuredClone(legacy)],
    fetch: async (url, init) => {
      sent = JSON.parse(init.body);
      return reply();
    },
  });
  await agent.runAgent({});
  return { messages: sent.messages, warnings };
}

process.stdout.write(JSON.stringify({ incoming: await incoming(), outgoing: await outgoing() }) + "\n");
