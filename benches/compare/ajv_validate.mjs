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
// node ajv_validate.mjs --serve FILE VERDICTS_OUT [REPORT_OUT]: after the
// warm-up, writes the verdicts and prints "ready"; then each line read on
// stdin makes one timed pass, answered by its seconds on one line
// (benches/validate_vs_ajv.py interleaves these passes with whole
// `ahp-elicit validate` runs). Ends at the end of stdin. A line `pass` is
// the lean pass above over the lines already in memory: the first error
// ends an event's check (allErrors off), only a verdict byte is kept. A
// line `report` is the pass doing the work `ahp-elicit validate --format
// json` does with the same schemas: the file read and split, every error
// of an event collected (allErrors on) with its instance pointer, keyword
// and message, and one JSON line an event written to REPORT_OUT
// ({id, type, valid, errors: [{pointer, rule, message}], input, line}, as
// ahp-elicit's).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const schema = (n) => JSON.parse(readFileSync(join(root, "schemas", n), "utf8"));
const mcp = schema("mcp-elicitation.schema.json");
// The three validators (wire root, request, result), first error only or
// every error.
function validators(allErrors) {
  const ajv = new Ajv2020({ strict: false, allErrors });
  addFormats(ajv);
  ajv.addSchema(schema("interaction-event.schema.json"));
  ajv.addSchema(mcp);
  const def = (n) => ajv.compile({ $ref: `${mcp.$id}#/$defs/${n}` });
  return { wire: ajv.compile(schema("ahp-event.schema.json")), request: def("request"), result: def("result") };
}
const { wire, request, result } = validators(false);
const every = validators(true);

const serve = process.argv[2] === "--serve";
const [file, out, third] = process.argv.slice(serve ? 3 : 2);
const runsArg = serve ? undefined : third;
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

// Every error of one event line as ahp-elicit reports them: pointer,
// rule (schema/keyword), message; a body text's errors point under it.
function errorsOf(line) {
  const found = (errs, at, rule) =>
    errs.map((e) => ({ pointer: at + e.instancePath, rule: `${rule}/${e.keyword}`, message: e.message }));
  let ev;
  try { ev = JSON.parse(line); } catch (e) { return [null, [{ pointer: "", rule: "syntax", message: e.message }]]; }
  if (!every.wire(ev)) return [ev, found(every.wire.errors, "", "wire-root")];
  const t = ev.type;
  const el = ev.payload?.elicitation;
  const isReq = t === "user.elicitation.request";
  const part = isReq ? el?.request : t === "user.elicitation.result" ? el?.result : undefined;
  if (part && typeof part.text === "string") {
    const at = `/payload/elicitation/${isReq ? "request" : "result"}/text`;
    let body;
    try { body = JSON.parse(part.text); } catch (e) { return [ev, [{ pointer: at, rule: "syntax", message: e.message }]]; }
    const v = isReq ? every.request : every.result;
    if (!v(body)) return [ev, found(v.errors, at, isReq ? "mcp-request" : "mcp-result")];
  }
  return [ev, []];
}

// The `report` pass: read, check with every error, write one line an event.
function report(reportOut) {
  const all = readFileSync(file, "utf8").split("\n");
  const outLines = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i].trim() === "") continue;
    const [ev, errors] = errorsOf(all[i]);
    const id = typeof ev?.id === "string" ? ev.id : null;
    const type = typeof ev?.type === "string" ? ev.type : null;
    outLines.push(JSON.stringify({ id, type, valid: errors.length === 0, errors, input: file, line: i + 1 }));
  }
  writeFileSync(reportOut, outLines.join("\n") + "\n");
}

for (const l of lines.slice(0, 2000)) { verdict(l); errorsOf(l); } // warm-up
if (serve) {
  const { createInterface } = await import("node:readline");
  const reportOut = third ?? "/dev/null";
  const verdicts = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) verdicts[i] = verdict(lines[i]);
  writeFileSync(out, Array.from(verdicts).join("\n") + "\n");
  report(reportOut);
  console.log("ready");
  for await (const cmd of createInterface({ input: process.stdin })) {
    const t0 = process.hrtime.bigint();
    if (cmd.trim() === "report") report(reportOut);
    else for (let i = 0; i < lines.length; i++) verdicts[i] = verdict(lines[i]);
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
