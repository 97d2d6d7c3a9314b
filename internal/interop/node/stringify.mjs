// Reads one JSON array on stdin whose elements are strings given as arrays
// of UTF-16 code units (so that lone surrogates survive the trip), and
// writes one JSON array with, for each, the UTF-8 bytes in hex of
// JSON.stringify(s) and of JSON.stringify(s.toWellFormed()). Hex keeps the
// answer ASCII, so nothing between Node and the test can re-encode it.
// Plain Node, no packages: JSON.stringify is the reference's escaper.
import { Buffer } from "node:buffer";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const fromUnits = (units) => {
  let s = "";
  // fromCharCode takes its units as arguments; a long string goes in slices
  // that stay far below the engine's argument limit.
  for (let i = 0; i < units.length; i += 4096) {
    s += String.fromCharCode(...units.slice(i, i + 4096));
  }
  return s;
};

const hexOf = (json) => {
  if (!json.isWellFormed()) throw new Error("JSON.stringify wrote a lone surrogate");
  return Buffer.from(json, "utf8").toString("hex");
};

const out = cases.map((units) => {
  const s = fromUnits(units);
  if (s.length !== units.length) throw new Error("a code unit was lost");
  return [hexOf(JSON.stringify(s)), hexOf(JSON.stringify(s.toWellFormed()))];
});
process.stdout.write(JSON.stringify(out));
