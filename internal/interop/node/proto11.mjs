// The protobuf binding of protocol 1.1, built from the 1.1 .proto files with
// protobufjs, line by line: each JSON event in gives the hex of its 1.1
// encoding out. Everything 1.0 has is encoded by the reference
// (@ag-ui/proto 1.0.0's encode()); its bytes are read back with the 1.1
// schema, the members 1.1 added (encryptedValueType) are set where the event
// has them, and protobufjs encodes the result. So the old fields are the
// reference's bytes and the new ones the 1.1 .proto's, with no code of ours.
//   node proto11.mjs PROTO_DIR < events.jsonl
// A line that fails gives "!" followed by the error's name and message.
import { encode } from "@ag-ui/proto";
import protobuf from "protobufjs";
import { createInterface } from "node:readline";
import path from "node:path";

const dir = process.argv[2];
const root = new protobuf.Root();
root.resolvePath = (origin, target) => {
  if (target.startsWith("google/protobuf/")) return target; // protobufjs's bundled copies
  return path.join(dir, path.basename(target));
};
await root.load(["events.proto"], { keepCase: false });
root.resolveAll();
const Event = root.lookupType("ag_ui.Event");

const T = "encryptedValueType";
// take removes the 1.1 member from a message (or tool call) and returns it.
const take = (o) => {
  const v = o[T];
  delete o[T];
  return v;
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of lines) {
  if (line === "") continue;
  try {
    const ev = JSON.parse(line);
    // What 1.1 added, by place: [setter on the decoded message, value].
    const sets = [];
    const messages = (list, get) => {
      (list ?? []).forEach((m, i) => {
        const v = take(m);
        if (v !== undefined) sets.push([(msg) => (get(msg).messages[i][T] = v)]);
        (m.toolCalls ?? []).forEach((c, j) => {
          const w = take(c);
          if (w !== undefined) sets.push([(msg) => (get(msg).messages[i].toolCalls[j][T] = w)]);
        });
      });
    };
    if (ev.type === "REASONING_ENCRYPTED_VALUE") {
      const v = take(ev);
      if (v !== undefined) sets.push([(msg) => (msg.reasoningEncryptedValue[T] = v)]);
    } else if (ev.type === "MESSAGES_SNAPSHOT") {
      messages(ev.messages, (msg) => msg.messagesSnapshot);
    } else if (ev.type === "RUN_STARTED" && ev.input) {
      messages(ev.input.messages, (msg) => msg.runStarted.input);
    }
    const old = encode(ev);
    const msg = Event.decode(old);
    for (const [set] of sets) set(msg);
    out.push(Buffer.from(Event.encode(msg).finish()).toString("hex"));
  } catch (err) {
    out.push("!" + err.name + ": " + err.message);
  }
}
process.stdout.write(out.join("\n") + "\n");
