#!/usr/bin/env python3
"""Python `jsonschema` doing the schema part of `ahp-elicit validate` on a
JSON Lines file, timed in-process (same work as ajv_validate.mjs: wire root,
then the body text against the `request`/`result` definition; formats
asserted).

Usage: py_validate_file.py FILE VERDICTS_OUT [MAX_EVENTS [RUNS]]
(only the first MAX_EVENTS lines are validated when given: Python takes
about 1 ms an event, so the comparison script samples it)
Times RUNS passes (default 1) and prints one JSON line: {events, valid,
seconds (the median pass), runs (every pass), eventsPerSecond}; writes one
verdict a line (1 valid, 0 invalid) to VERDICTS_OUT.
"""
import json
import sys
import time
from pathlib import Path

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]


def load(name):
    s = json.loads((ROOT / "schemas" / name).read_text())
    return s["$id"], s


def main():
    file, out = sys.argv[1], sys.argv[2]
    loaded = {n: load(n) for n in ("ahp-event.schema.json", "interaction-event.schema.json", "mcp-elicitation.schema.json")}
    registry = Registry().with_resources(
        (uri, Resource.from_contents(s, default_specification=DRAFT202012)) for uri, s in loaded.values())
    fc = jsonschema.Draft202012Validator.FORMAT_CHECKER
    V = lambda s: jsonschema.Draft202012Validator(s, registry=registry, format_checker=fc)
    wire = V(loaded["ahp-event.schema.json"][1])
    mcp_id = loaded["mcp-elicitation.schema.json"][0]
    request, result = V({"$ref": mcp_id + "#/$defs/request"}), V({"$ref": mcp_id + "#/$defs/result"})
    lines = [l for l in Path(file).read_text().splitlines() if l.strip()]
    if len(sys.argv) > 3:
        lines = lines[: int(sys.argv[3])]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 1

    def verdict(line):
        try:
            ev = json.loads(line)
        except ValueError:
            return 0
        if not wire.is_valid(ev):
            return 0
        t = ev.get("type")
        el = (ev.get("payload") or {}).get("elicitation") or {}
        part = el.get("request") if t == "user.elicitation.request" else el.get("result") if t == "user.elicitation.result" else None
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            try:
                body = json.loads(part["text"])
            except ValueError:
                return 0
            return 1 if (request if t == "user.elicitation.request" else result).is_valid(body) else 0
        return 1

    for l in lines[:200]:
        verdict(l)
    passes = []
    for _ in range(max(1, runs)):
        t0 = time.perf_counter()
        verdicts = [verdict(l) for l in lines]
        passes.append(time.perf_counter() - t0)
    seconds = sorted(passes)[len(passes) // 2]
    Path(out).write_text("".join(f"{v}\n" for v in verdicts))
    print(json.dumps({"events": len(lines), "valid": sum(verdicts), "seconds": seconds, "runs": passes,
                      "eventsPerSecond": len(lines) / seconds}))


if __name__ == "__main__":
    main()
