// Measures the reference client reading a text answer: an HttpAgent run
// over loopback HTTP of one message streamed as N text deltas (SSE parse,
// enforcement, chunk transform, verifier and reducer, as runAgent does).
// Prints {"nsPerDelta": ..., "cpuNsPerDelta": ...}: the best wall and CPU
// time (the process's, its in-process server included) of several runs
// after a warm-up.
// Driven by ../bench_test.go, so the figure lands in the same benchmark
// run as the Go client's.
//
// Usage: node bench.mjs N
import { HttpAgent } from "@ag-ui/client";
import { createServer } from "node:http";

const n = Number(process.argv[2] ?? 1000);
let body = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n';
body += 'data: {"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}\n\n';
for (let i = 0; i < n; i++) body += 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello, world! "}\n\n';
body += 'data: {"type":"TEXT_MESSAGE_END","messageId":"msg-1"}\n\n';
body += 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n';

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

async function once() {
  const agent = new HttpAgent({ url, threadId: "t" });
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await agent.runAgent({ runId: "r" });
  const ns = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpu0);
  bestCPU = Math.min(bestCPU, (cpu.user + cpu.system) * 1000);
  if (agent.messages.length !== 1 || agent.messages[0].content.length !== 14 * n) {
    throw new Error("the reference client did not assemble the answer");
  }
  return ns;
}

let bestCPU = Infinity;
await once(); // warm-up: JIT
bestCPU = Infinity;
let best = Infinity;
for (let i = 0; i < 5; i++) best = Math.min(best, await once());
server.close();
process.stdout.write(JSON.stringify({ nsPerDelta: best / n, cpuNsPerDelta: bestCPU / n }) + "\n");
