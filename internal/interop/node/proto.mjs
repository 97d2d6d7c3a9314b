// The reference protobuf binding (@ag-ui/proto 1.0.0), line by line.
//   node proto.mjs encode   JSON event per line in, hex of encode() per line out
//   node proto.mjs decode   hex per line in, JSON of decode() per line out
// A line that fails gives "!" followed by the error's name and message.
import { encode, decode } from "@ag-ui/proto";
import { createInterface } from "node:readline";

const mode = process.argv[2];
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of lines) {
  if (line === "") continue;
  try {
    if (mode === "encode") {
      out.push(Buffer.from(encode(JSON.parse(line))).toString("hex"));
    } else if (mode === "decode") {
      out.push(JSON.stringify(decode(Buffer.from(line, "hex"))));
    } else {
      throw new Error("mode must be encode or decode");
    }
  } catch (err) {
    out.push("!" + err.name + ": " + err.message);
  }
}
process.stdout.write(out.join("\n") + "\n");
