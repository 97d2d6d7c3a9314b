// Writes, as one JSON object, the member order of every object schema that
// @ag-ui/core 1.0.0 exports: schema name (without "Schema") to its keys in
// declaration order, which is the order zod builds parsed objects in.
import * as schemas from "@ag-ui/core/schemas";

const out = {};
for (const [name, schema] of Object.entries(schemas)) {
  if (name.endsWith("Schema") && schema?.shape && typeof schema.shape === "object") {
    out[name.slice(0, -"Schema".length)] = Object.keys(schema.shape);
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
