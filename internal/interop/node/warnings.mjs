// Every warning or error a script's client prints is a finding: this turns
// console.warn, console.error and process warnings into lines of one array,
// which the script puts in its report. Shared by the scripts that report a
// whole session (httpagent.mjs, read.mjs, connect.mjs).
export function captureWarnings() {
  const warnings = [];
  const capture = (level) => (...args) =>
    warnings.push(`${level}: ${args.map((a) => (a instanceof Error ? a.stack : typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`);
  console.warn = capture("console.warn");
  console.error = capture("console.error");
  process.on("warning", (w) => warnings.push(`process warning: ${w.name}: ${w.message}`));
  return warnings;
}
