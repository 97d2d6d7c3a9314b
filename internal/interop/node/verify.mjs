// Reads one stream per line on stdin (a JSON array of events) and writes,
// per stream, one line with the reference client's verdict: the events go
// through the stages a consuming client runs them through (@ag-ui/client
// 1.0.0: enforceEvents, transformChunks, verifyEvents) and the result is
// {"ok":bool,"index":N,"message":"..."}, index being the position of the
// input event being processed when the pipeline failed (-1 when it did not).
//
// With the argument "expand", verifyEvents is left out and the result also
// holds "events": what chunk expansion delivered, up to any failure.
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
import { enforceEvents, transformChunks, verifyEvents } from "@ag-ui/client";
import { from, tap } from "rxjs";
import { createInterface } from "node:readline";

const expandOnly = process.argv[2] === "expand";

function check(events) {
  let current = -1;
  let verdict = { ok: true, index: -1, message: "" };
  const delivered = [];
  const stages = [
    tap(() => {
      current++;
    }),
    enforceEvents(),
    transformChunks(),
  ];
  if (!expandOnly) stages.push(verifyEvents());
  from(events)
    .pipe(...stages)
    .subscribe({
      next: (event) => {
        if (expandOnly) delivered.push(event);
      },
      error: (err) => {
        verdict = { ok: false, index: current, message: String(err?.message ?? err) };
      },
    });
  if (expandOnly) verdict.events = delivered;
  return verdict;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === "") continue;
  process.stdout.write(JSON.stringify(check(JSON.parse(line))) + "\n");
}
