#!/usr/bin/env python3
"""Writes the hostile-input corpus into tests/hostile/cases/.

Each case is a folder: `input` (the exact bytes fed to stdin, or
`input.gen.json` {prefix, repeat, count, suffix} for a large one), `args.json`
(the ahp-elicit arguments), optional `answers.json`, and `expect.json`:
  exit            the exit code
  actions         the actions of the result events on stdout, in order
  stderr_has      substrings stderr must contain
  never           substrings neither stdout nor stderr may contain raw
                  (control/escape/bidi characters: terminal injection)
The corpus is committed; run this script again after editing it.
"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")

def event(params, mode=None, eid="evt-h", server=None, **over):
    if mode is None:
        mode = params.get("mode", "form") if isinstance(params, dict) else "form"
    text = params if isinstance(params, str) else json.dumps(params)
    ev = {"ahp": "0.1", "id": eid, "type": "user.elicitation.request",
          "time": "2026-11-30T09:00:00Z", "source": {"adapter": "mcp-stdio"},
          "payload": {"elicitation": {"server": server or {"name": "hostile"}, "mode": mode,
                      "request": {"type": "text", "selection": "body", "text": text}}}}
    for k, v in over.items():
        ev[k] = v
    return ev

def form(props, required=None, message="Fill in", **extra):
    rs = {"type": "object", "properties": props}
    if required is not None:
        rs["required"] = required
    p = {"message": message, "requestedSchema": rs}
    p.update(extra)
    return p

OK = form({"name": {"type": "string", "default": "x"}})
def line(ev):
    return (json.dumps(ev) + "\n").encode()

ESC = "\u001b"
NEVER = [ESC, "\u0007", "\u202e", "\u009b"]
cases = []
def case(name, data, args=("respond", "--action", "accept"), exit=0, actions=(), stderr_has=(), answers=None, never=NEVER):
    cases.append((name, data, list(args), exit, list(actions), list(stderr_has), answers, list(never)))

# --- streams and framing
case("empty-input", b"")
case("whitespace-only", b"  \n\n\t\n")
case("not-json-line", b"hello there\n", exit=1, stderr_has=["line 1"])
case("invalid-utf8", b'{"ahp": "0.1", "id": "\xff\xfe"}\n', exit=1, stderr_has=["UTF-8"])
case("truncated-then-good", b'{"ahp": "0.1", "id":\n' + line(event(OK, eid="good")), exit=1, actions=["accept"], stderr_has=["line 1"])
case("bad-line-in-middle", line(event(OK, eid="a")) + b"{oops}\n" + line(event(OK, eid="c")), exit=1, actions=["accept", "accept"], stderr_has=["line 2"])
case("crlf-lines", (json.dumps(event(OK, eid="a")) + "\r\n" + json.dumps(event(OK, eid="b")) + "\r\n").encode(), actions=["accept", "accept"])
case("utf8-bom", b"\xef\xbb\xbf" + line(event(OK)), actions=["accept"])  # read past
case("deep-nesting", (b"[" * 70 + b"]" * 70 + b"\n"), exit=1, stderr_has=["nesting depth"])
# The oversized input is built by the test from input.gen.json (not stored): prefix + repeat*count + suffix.
case("oversized-line-then-good", {"prefix": '{"x": "', "repeat": "a", "count": 5 * 1024 * 1024, "suffix": '"}\n' + json.dumps(event(OK, eid="g")) + "\n"}, exit=1, actions=["accept"], stderr_has=["limit"])
case("three-requests", line(event(OK, eid="a")) + line(event(OK, eid="b")) + line(event(OK, eid="c")), actions=["accept"] * 3)
case("pretty-printed-document", (json.dumps(event(OK), indent=2) + "\n").encode(), actions=["accept"])
# --- envelope and wire root
case("top-level-array", b"[1, 2, 3]\n", exit=1)
case("top-level-number", b"42\n", exit=1)
case("wrong-ahp-version", line(event(OK, ahp="0.2")), exit=1)
case("unknown-event-type", line(event(OK, type="user.elicitation.bogus")), exit=1)
case("result-event-given", line({"ahp": "0.1", "id": "r", "type": "user.elicitation.result", "time": "2026-11-30T09:00:00Z", "source": {"adapter": "x"}, "parentEventId": "p", "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form", "action": "cancel"}}}), exit=0,
     stderr_has=["skipped, a user.elicitation.result event is not a request"])
case("envelope-extra-field", line(event(OK, surprise=True)), exit=1)
case("id-control-char", line(event(OK, eid="evt\u001b[2J")), exit=1)
case("id-too-long", line(event(OK, eid="e" * 257)), exit=1)
case("time-not-rfc3339", line(event(OK, time="yesterday")), exit=1)
case("missing-source-adapter", line(event(OK, source={})), exit=1)
case("server-extra-field", line(event(OK, server={"name": "s", "admin": True})), exit=1)
case("duplicate-keys-last-wins", b'{"ahp": "0.1", "ahp": "0.1", ' + line(event(OK))[1:], actions=["accept"])
# --- body text
case("mode-mismatch", line(event(OK, mode="url")), exit=1, stderr_has=["mode-match"])
case("text-not-json", line(event("not json {")), exit=1)
case("text-is-array", line(event("[1,2]")), exit=1)
case("text-deep-nesting", line(event("[" * 100 + "]" * 100)), exit=1, stderr_has=["nesting depth"])
case("too-many-properties", line(event(form({f"f{i}": {"type": "boolean"} for i in range(1001)}))), exit=1, stderr_has=["limit"])
case("too-many-options", line(event(form({"pick": {"type": "string", "enum": [f"o{i}" for i in range(20001)]}}))), exit=1, stderr_has=["limit"])
case("huge-message", line(event(form({"a": {"type": "boolean"}}, message="m" * 70000))), exit=1, stderr_has=["limit"])
case("pattern-keyword", line(event(form({"p": {"type": "string", "pattern": "^a"}}))), exit=1)
case("nested-object-property", line(event(form({"o": {"type": "object", "properties": {}}}))), exit=1)
case("required-unknown", line(event(form({"a": {"type": "string"}}, required=["a", "b"]))), exit=1, stderr_has=["required"])
case("enum-default-not-member", line(event(form({"s": {"type": "string", "enum": ["a"], "default": "z"}}))), exit=1)
case("number-out-of-range", line(event('{"message": "m", "requestedSchema": {"type": "object", "properties": {"n": {"type": "number", "default": 1e400}}}}')), exit=1)
case("lone-surrogate", line(event('{"message": "\\ud800", "requestedSchema": {"type": "object", "properties": {}}}')), exit=1)
case("nul-in-message", line(event(form({"a": {"type": "boolean", "default": True}}, message="nul\u0000here"))), actions=["accept"])
# --- terminal injection in what is echoed back
case("escape-in-property-name-of-bad-request", line(event(form({"x\u001b]8;;http://evil\u0007y": {"type": "nope"}}))), exit=1)
case("bidi-in-invalid-title", line(event(form({"t": {"type": "string", "title": "abc\u202edef", "pattern": "x"}}))), exit=1)
case("c1-csi-in-server-name-invalid", line(event(form({"a": {"type": "nope"}}), server={"name": "srv\u009b2J"})), exit=1)
case("escape-in-valid-message-is-kept-in-json", line(event(form({"a": {"type": "boolean", "default": False}}, message="\u001b[31mred"))), actions=["accept"], never=["\u0007", "\u202e"])
# --- modes and views
case("url-not-advertised", line(event({"mode": "url", "message": "m", "url": "https://example.com/", "elicitationId": "e1"})), args=["respond", "--action", "decline", "--modes", "form"], exit=1, stderr_has=["not advertised"])
case("form-not-advertised", line(event(OK)), args=["respond", "--action", "decline", "--modes", "url"], exit=1, stderr_has=["not advertised"])
case("metadata-view-accept-refused", line({**event(OK), "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form", "request": {"type": "text", "selection": "metadata"}}}}), exit=1)
case("metadata-view-decline", line({**event(OK), "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form", "request": {"type": "text", "selection": "metadata"}}}}), args=["respond", "--action", "decline"], actions=["decline"])
case("gap-view-cancel", line({**event(OK), "payload": {"elicitation": {"server": {"name": "s"}, "mode": "form", "request": {"type": "text", "selection": "body", "gap": {"reason": "too-large"}}}}}), args=["respond", "--action", "cancel"], actions=["cancel"])
case("javascript-url-accept-refused", line(event({"mode": "url", "message": "m", "url": "javascript:alert(1)", "elicitationId": "e1"})), args=["respond", "--action", "accept", "--no-open"], exit=1)
# --- scripted answers
case("answer-unknown-field", line(event(OK)), args=["respond", "--answers", "ANSWERS"], answers={"action": "accept", "content": {"isAdmin": True}}, exit=1)
case("answer-wrong-type", line(event(form({"n": {"type": "integer"}}, required=["n"]))), args=["respond", "--answers", "ANSWERS"], answers={"action": "accept", "content": {"n": "five"}}, exit=1)
case("answer-integer-fraction", line(event(form({"n": {"type": "integer"}}, required=["n"]))), args=["respond", "--answers", "ANSWERS"], answers={"action": "accept", "content": {"n": 2.5}}, exit=1)
case("answer-required-missing", line(event(form({"n": {"type": "string"}}, required=["n"]))), args=["respond", "--answers", "ANSWERS"], answers={"action": "accept", "content": {}}, exit=1)

if os.path.isdir(OUT):
    shutil.rmtree(OUT)
for i, (name, data, args, exit_code, actions, stderr_has, answers, never) in enumerate(cases, 1):
    d = os.path.join(OUT, f"{i:02d}-{name}")
    os.makedirs(d)
    if isinstance(data, dict):
        with open(os.path.join(d, "input.gen.json"), "w") as f:
            json.dump(data, f)
    else:
        with open(os.path.join(d, "input"), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "args.json"), "w") as f:
        json.dump(args, f)
    if answers is not None:
        with open(os.path.join(d, "answers.json"), "w") as f:
            json.dump(answers, f)
    with open(os.path.join(d, "expect.json"), "w") as f:
        json.dump({"exit": exit_code, "actions": actions, "stderr_has": stderr_has, "never": never}, f, indent=1)
print(f"{len(cases)} cases written to {OUT}")
