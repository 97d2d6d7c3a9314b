// The TypeScript reference 1.0.0 on the payload of agui-go's bench module
// (../../../bench): driven by its BenchmarkEncodeFrame and
// BenchmarkPipelineRead, so the figures land in the same benchmark run as
// the Go ones.
//
//   node peerbench.mjs encode N @ag-ui/encoder: one TEXT_MESSAGE_CONTENT to
//                               its SSE frame (EventEncoder.encode), N times
//   node peerbench.mjs read N   @ag-ui/client's read pipeline as runAgent
//                               applies it (SSE framing and schema parse,
//                               chunk transform, verifier) over an N-delta
//                               run held in memory, no HTTP: per frame
//
// Prints {"nsPerOp": ..., "cpuNsPerOp": ..., "check": ...}: the best wall
// and CPU time per op over several rounds after a warm-up (JIT), and a
// value the Go side checks so that a broken pipeline cannot report a time.
import { EventEncoder } from "@ag-ui/encoder";
import { transformHttpEventStream, transformChunks, verifyEvents } from "@ag-ui/client";
import { Observable, lastValueFrom } from "rxjs";
import { count } from "rxjs/operators";

const delta = { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: "Hello, world! " };

function measure(rounds, fn) {
  let best = Infinity, bestCPU = Infinity, check;
  for (let i = 0; i <= rounds; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const r = fn();
    const ns = Number(process.hrtime.bigint() - t0);
    const c = process.cpuUsage(cpu0);
    if (i === 0) continue; // warm-up
    best = Math.min(best, ns / r.ops);
    bestCPU = Math.min(bestCPU, ((c.user + c.system) * 1000) / r.ops);
    check = r.check;
  }
  return { nsPerOp: best, cpuNsPerOp: bestCPU, check };
}

async function measureAsync(rounds, fn) {
  let best = Infinity, bestCPU = Infinity, check;
  for (let i = 0; i <= rounds; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const r = await fn();
    const ns = Number(process.hrtime.bigint() - t0);
    const c = process.cpuUsage(cpu0);
    if (i === 0) continue;
    best = Math.min(best, ns / r.ops);
    bestCPU = Math.min(bestCPU, ((c.user + c.system) * 1000) / r.ops);
    check = r.check;
  }
  return { nsPerOp: best, cpuNsPerOp: bestCPU, check };
}

function body(n) {
  let s = 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0"}\n\n';
  s += 'data: {"type":"TEXT_MESSAGE_START","messageId":"msg-1"}\n\n';
  for (let i = 0; i < n; i++) s += "data: " + JSON.stringify(delta) + "\n\n";
  s += 'data: {"type":"TEXT_MESSAGE_END","messageId":"msg-1"}\n\n';
  s += 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}\n\n';
  return new TextEncoder().encode(s);
}

const [mode, arg] = process.argv.slice(2);
let result;
if (mode === "encode") {
  const encoder = new EventEncoder();
  const n = Number(arg ?? 100000);
  result = measure(5, () => {
    let frame;
    for (let i = 0; i < n; i++) frame = encoder.encode(delta);
    return { ops: n, check: frame };
  });
} else if (mode === "read") {
  const n = Number(arg ?? 1000);
  const bytes = body(n);
  const headers = new Headers({ "content-type": "text/event-stream" });
  result = await measureAsync(5, async () => {
    // The body arrives in 16 KiB chunks, as from a socket, after the
    // pipeline has subscribed (transformHttpEventStream subscribes to its
    // source at once and forwards through a Subject, so a synchronous
    // source would be drained before anyone listens).
    const source$ = new Observable((sub) => {
      setImmediate(() => {
        sub.next({ type: "headers", status: 200, headers });
        for (let off = 0; off < bytes.length; off += 16384) {
          sub.next({ type: "data", data: bytes.subarray(off, off + 16384) });
        }
        sub.complete();
      });
    });
    const events = await lastValueFrom(
      transformHttpEventStream(source$).pipe(transformChunks(), verifyEvents(), count()),
    );
    return { ops: n + 4, check: events };
  });
} else {
  process.stderr.write("usage: node peerbench.mjs encode N | read N\n");
  process.exit(2);
}
process.stdout.write(JSON.stringify(result) + "\n");
