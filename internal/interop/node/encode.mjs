// Reads one JSON event per line on stdin and writes what the reference
// encoder (@ag-ui/encoder 1.0.0) produces for it: an SSE frame per event.
import { EventEncoder } from "@ag-ui/encoder";
import { createInterface } from "node:readline";

const encoder = new EventEncoder();
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  process.stdout.write(encoder.encode(JSON.parse(line)));
}
