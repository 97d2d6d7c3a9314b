// Measures the reference protobuf binding (@ag-ui/proto 1.0.0) on the events
// given one JSON per line on stdin: for each, the mean time of encode() and
// of decode() after a warm-up, one JSON line out:
// {"encodeNs":…,"decodeNs":…}.
import { encode, decode } from "@ag-ui/proto";
import { createInterface } from "node:readline";

// Each measurement warms up for 200 ms, then runs batches for at least
// budgetMs (default 500) and reports the mean.
const budgetMs = Number(process.argv[2] ?? 500);
const run = (f, ms) => {
  let n = 0;
  const start = process.hrtime.bigint();
  const stop = start + BigInt(ms * 1e6);
  let now = start;
  while (now < stop) {
    for (let i = 0; i < 100; i++) f();
    n += 100;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / n;
};
const time = (f) => {
  run(f, 200);
  return run(f, budgetMs);
};
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  const event = JSON.parse(line);
  const bytes = encode(event);
  const encodeNs = time(() => encode(event));
  const decodeNs = time(() => decode(bytes));
  process.stdout.write(JSON.stringify({ encodeNs, decodeNs }) + "\n");
}
