// Reads one JSON event per line on stdin and writes what the reference
// encoder (@ag-ui/encoder 1.0.0) produces for it: an SSE frame per event.
//
// Each event is first parsed with @ag-ui/core's schema, as a TypeScript peer
// holds it: zod builds the object in its schema's declaration order, and the
// encoder writes that object's keys in that order.
//
// With the argument "canonical" it writes instead, per line, what
// JSON.stringify makes of the line as given: the line itself when its
// spelling is canonical for JavaScript (numbers such as 2.5e3 are not).
import { EventEncoder } from "@ag-ui/encoder";
import { EventSchemas } from "@ag-ui/core/schemas";
import { createInterface } from "node:readline";

const canonical = process.argv[2] === "canonical";
const encoder = new EventEncoder();
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  if (canonical) {
    process.stdout.write(JSON.stringify(JSON.parse(line)) + "\n");
  } else {
    process.stdout.write(encoder.encode(EventSchemas.parse(JSON.parse(line))));
  }
}
