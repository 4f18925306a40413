// ajv 8 (draft 2020-12, ajv-formats) doing the schema part of `ahp-elicit
// validate` on a JSON Lines file, timed in-process: the wire root
// (schemas/ahp-event.schema.json with interaction-event.schema.json for its
// references), then for a request/result event with a body text, the parsed
// text against the `request`/`result` definition of
// schemas/mcp-elicitation.schema.json. No cross-checks, no runtime checks.
//
// Usage: node ajv_validate.mjs FILE VERDICTS_OUT [RUNS]
// Times RUNS passes over the file (default 1) after a warm-up and prints
// one JSON line: {events, valid, seconds (the median pass), runs (every
// pass), eventsPerSecond}; writes one verdict a line (1 valid, 0 invalid)
// to VERDICTS_OUT.
//
// node ajv_validate.mjs --serve FILE VERDICTS_OUT: after the warm-up,
// writes the verdicts and prints "ready"; then each line read on stdin
// makes one timed pass over the file, answered by its seconds on one line
// (benches/validate_vs_ajv.py interleaves these passes with whole
// `ahp-elicit validate` runs). Ends at the end of stdin.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const schema = (n) => JSON.parse(readFileSync(join(root, "schemas", n), "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const mcp = schema("mcp-elicitation.schema.json");
ajv.addSchema(schema("interaction-event.schema.json"));
ajv.addSchema(mcp);
const wire = ajv.compile(schema("ahp-event.schema.json"));
const def = (n) => ajv.compile({ $ref: `${mcp.$id}#/$defs/${n}` });
const request = def("request");
const result = def("result");

const serve = process.argv[2] === "--serve";
const [file, out, runsArg] = process.argv.slice(serve ? 3 : 2);
const runs = Math.max(1, Number(runsArg ?? 1));
const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");

function verdict(line) {
  let ev;
  try { ev = JSON.parse(line); } catch { return 0; }
  if (!wire(ev)) return 0;
  const t = ev.type;
  const el = ev.payload?.elicitation;
  const part = t === "user.elicitation.request" ? el?.request : t === "user.elicitation.result" ? el?.result : undefined;
  if (part && typeof part.text === "string") {
    let body;
    try { body = JSON.parse(part.text); } catch { return 0; }
    return (t === "user.elicitation.request" ? request : result)(body) ? 1 : 0;
  }
  return 1;
}

for (const l of lines.slice(0, 2000)) verdict(l); // warm-up
if (serve) {
  const { createInterface } = await import("node:readline");
  const verdicts = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) verdicts[i] = verdict(lines[i]);
  writeFileSync(out, Array.from(verdicts).join("\n") + "\n");
  console.log("ready");
  for await (const _ of createInterface({ input: process.stdin })) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < lines.length; i++) verdicts[i] = verdict(lines[i]);
    console.log(String(Number(process.hrtime.bigint() - t0) / 1e9));
  }
  process.exit(0);
}
const verdicts = new Uint8Array(lines.length);
const passes = [];
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < lines.length; i++) verdicts[i] = verdict(lines[i]);
  passes.push(Number(process.hrtime.bigint() - t0) / 1e9);
}
const seconds = [...passes].sort((a, b) => a - b)[Math.floor(passes.length / 2)];
writeFileSync(out, Array.from(verdicts).join("\n") + "\n");
const valid = verdicts.reduce((a, b) => a + b, 0);
console.log(JSON.stringify({ events: lines.length, valid, seconds, runs: passes, eventsPerSecond: lines.length / seconds }));
