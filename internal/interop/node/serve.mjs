// Serves AG-UI streams written by the reference encoder (@ag-ui/encoder
// 1.0.0), for ../client_test.go. argv[2] is a JSON file mapping a name to a
// list of events; a POST to /<name> is answered with those events, each
// encoded by EventEncoder (negotiated from the request's Accept header) and
// written as its own chunk. Prints the base URL on stdout once listening.
import { EventEncoder } from "@ag-ui/encoder";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";

const streams = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = createServer((req, res) => {
  const events = streams[decodeURIComponent(req.url.slice(1))];
  req.resume();
  req.on("end", () => {
    if (!events) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: `no stream ${req.url}` } }));
      return;
    }
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "Content-Type": encoder.getContentType() });
    for (const ev of events) res.write(encoder.encode(ev));
    res.end();
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
