#!/usr/bin/env python3
"""Python `jsonschema` on the same events as `benches/validate.rs`.

Validates every event of the mix against the same schema files
(`schemas/*.json`): the wire root (`ahp-event.schema.json`, with
`interaction-event.schema.json` registered for its references), and for
request/result events with a body text, the parsed text against the
`request`/`result` definition of `mcp-elicitation.schema.json`. Formats are
asserted (FormatChecker), as in the Rust build. This is schema work only:
the Rust figure also includes the runtime checks (closed form subset,
cross-body checks), so the Python figure is an upper bound for equal work.

The mix (same rule as the Rust bench): the `.json` examples in name order,
then the lines of the `.jsonl` examples, then for every vector its `request`
then its `result`.

Usage: python3 benches/py_validate.py [--seconds 3]
"""

import json
import sys
import time
from pathlib import Path

try:
    import jsonschema
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:  # pragma: no cover
    sys.exit("python jsonschema is missing: pip install jsonschema")

ROOT = Path(__file__).resolve().parent.parent


def load_schema(name):
    text = (ROOT / "schemas" / name).read_text()
    schema = json.loads(text)
    uri = schema.get("$id", "urn:ahp-elicit:" + name)
    return uri, schema


def mix():
    ex = ROOT / "examples"
    names = sorted(ex.iterdir(), key=lambda p: str(p))
    events = []
    for p in names:
        if p.suffix == ".json":
            events.append(json.loads(p.read_text()))
    for p in names:
        if p.suffix == ".jsonl":
            events += [json.loads(l) for l in p.read_text().splitlines() if l.strip()]
    for l in (ROOT / "tests" / "vectors" / "elicitation.jsonl").read_text().splitlines():
        if l.strip():
            v = json.loads(l)
            for k in ("request", "result"):
                if k in v:
                    events.append(v[k])
    # The same bytes as the Rust mix: one compact line each.
    return [json.dumps(e, separators=(",", ":"), ensure_ascii=False).encode() for e in events]


def main():
    seconds = 3.0
    if "--seconds" in sys.argv:
        seconds = float(sys.argv[sys.argv.index("--seconds") + 1])
    resources = []
    schemas = {}
    for name in ("ahp-event.schema.json", "interaction-event.schema.json", "mcp-elicitation.schema.json"):
        uri, schema = load_schema(name)
        schemas[name] = (uri, schema)
        resources.append((uri, Resource.from_contents(schema, default_specification=DRAFT202012)))
    registry = Registry().with_resources(resources)
    fc = jsonschema.Draft202012Validator.FORMAT_CHECKER
    root_uri, root = schemas["ahp-event.schema.json"]
    mcp_uri, mcp = schemas["mcp-elicitation.schema.json"]
    wire = jsonschema.Draft202012Validator(root, registry=registry, format_checker=fc)

    def definition(name):
        if name in mcp.get("$defs", {}):
            ref = {"$ref": mcp_uri + "#/$defs/" + name}
        else:
            print(f"note: schemas/mcp-elicitation.schema.json has no $defs/{name} (placeholder schema?)",
                  file=sys.stderr)
            ref = mcp
        return jsonschema.Draft202012Validator(ref, registry=registry, format_checker=fc)

    req_v = definition("request")
    res_v = definition("result")
    lines = mix()

    def run_once():
        invalid = 0
        for b in lines:
            try:
                ev = json.loads(b)
            except ValueError:
                invalid += 1
                continue
            errs = list(wire.iter_errors(ev))
            if not errs and isinstance(ev, dict):
                t = ev.get("type")
                el = (ev.get("payload") or {}).get("elicitation") or {}
                part = el.get("request") if t == "user.elicitation.request" else el.get("result")
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    try:
                        body = json.loads(part["text"])
                        v = req_v if t == "user.elicitation.request" else res_v
                        errs = list(v.iter_errors(body))
                    except ValueError:
                        errs = ["text-json"]
            if errs:
                invalid += 1
        return invalid

    invalid = run_once()  # warm-up
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        run_once()
        n += 1
    elapsed = time.perf_counter() - start
    eps = n * len(lines) / elapsed
    print(f"python jsonschema {jsonschema_version()}: {len(lines)} events, {sum(map(len, lines))} bytes; "
          f"{n} passes in {elapsed:.2f} s; {eps:,.0f} events/s; {invalid} judged invalid by the schemas alone")


def jsonschema_version():
    from importlib.metadata import version
    return version("jsonschema")


if __name__ == "__main__":
    main()
