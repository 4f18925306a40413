#!/bin/sh
# The client command given to the MCP conformance suite
# (`conformance client --command .ci/mcp/conformance-client.sh`): the suite
# appends the server URL and sets MCP_CONFORMANCE_SCENARIO (and, with the
# 0.2.0 pre-releases, MCP_CONFORMANCE_PROTOCOL_VERSION and
# MCP_CONFORMANCE_CONTEXT); this picks the arguments the scenario expects.
# No --protocol is given: the client finds the revision itself.
# AHP_ELICIT_BIN is the binary under test (default: target/debug/ahp-elicit
# of this checkout).
set -eu
here="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${AHP_ELICIT_BIN:-$here/target/debug/ahp-elicit}"
for url; do :; done
# The scenario's server offers one tool (or none): list, then call it by
# name (the client never calls a tool it was not given). The arguments are
# the flags for both runs and the URL last.
only_tool() {
  tool=$("$bin" mcp --action accept "$@" | python3 -c '
import json, sys
tools = json.load(sys.stdin)["tools"]
print(tools[0]["name"] if len(tools) == 1 else "")')
  if [ -n "$tool" ]; then
    exec "$bin" mcp --call "$tool" --action accept "$@"
  fi
}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call)
    exec "$bin" mcp --call add_numbers --args '{"a":5,"b":3}' --action accept "$@" ;;
  sse-retry)
    exec "$bin" mcp --call test_reconnection --action accept "$@" ;;
  elicitation-sep1034-client-defaults)
    exec "$bin" mcp --call test_client_elicitation_defaults --action accept "$@" ;;
  json-schema-2020-12-preservation)
    # (0.2.0 pre-releases) Echo the focal tool's inputSchema, as listed by
    # `ahp-elicit mcp` (verbatim), through the echo tool.
    schema=$("$bin" mcp --action accept "$url" | python3 -c '
import json, sys
tools = json.load(sys.stdin)["tools"]
focal = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")
print(json.dumps({"schema": focal["inputSchema"]}))')
    exec "$bin" mcp --call json_schema_echo --args "$schema" --action accept "$url" ;;
  sep-2322-client-request-state)
    # Each MRTR tool in its own run (the unrelated one between the others).
    for t in test_mrtr_echo_state test_mrtr_unrelated test_mrtr_no_state test_mrtr_no_result_type; do
      "$bin" mcp --call "$t" --action accept "$url" >/dev/null
    done ;;
  http-standard-headers)
    "$bin" mcp --call test_headers --action accept "$url" >/dev/null
    "$bin" mcp --call my-hyphenated-tool --action accept "$url" >/dev/null
    "$bin" mcp --read 'file:///path/to/file%20name.txt' --action accept "$url" >/dev/null
    exec "$bin" mcp --prompt test_prompt --action accept "$url" >/dev/null ;;
  http-custom-headers)
    # The calls the scenario asks for, from its context.
    printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | python3 -c '
import json, sys
for c in json.load(sys.stdin).get("toolCalls", []):
    print(c["name"]); print(json.dumps(c.get("arguments", {})))' |
    while IFS= read -r name && IFS= read -r args; do
      "$bin" mcp --call "$name" --args "$args" --action accept "$url" >/dev/null
    done ;;
  http-invalid-tool-headers)
    # Call every tool the client kept (it leaves out the invalid ones),
    # each required string argument given "x".
    "$bin" mcp --action accept "$url" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tools"]:
    s = t.get("inputSchema", {})
    args = {k: "x" for k in s.get("required", [])
            if s.get("properties", {}).get(k, {}).get("type") == "string"}
    print(t["name"]); print(json.dumps(args))' |
    while IFS= read -r name && IFS= read -r args; do
      "$bin" mcp --call "$name" --args "$args" --action accept "$url" >/dev/null
    done ;;
  json-schema-ref-no-deref)
    # Only the listing matters (no network $ref is fetched).
    "$bin" mcp --action accept "$url" >/dev/null ;;
  auth/client-credentials-*|auth/wif-jwt-bearer|auth/enterprise-managed-authorization)
    # Signing in without a person (--grant): the scenario's credentials
    # from MCP_CONFORMANCE_CONTEXT, each written to a private file and
    # given by reference (file:PATH), never on the command line.
    ctx=$(mktemp -d)
    trap 'rm -rf "$ctx"' EXIT
    printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | python3 -c '
import json, os, sys
d = sys.argv[1]
for k, v in json.load(sys.stdin).items():
    if isinstance(v, str):
        fd = os.open(os.path.join(d, k), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, v.encode()); os.close(fd)' "$ctx"
    set -- --auth-store memory --client-id "$(cat "$ctx/client_id")" "$@"
    case "$MCP_CONFORMANCE_SCENARIO" in
      auth/client-credentials-basic)
        set -- --grant client-credentials --client-secret "file:$ctx/client_secret" "$@" ;;
      auth/client-credentials-jwt)
        set -- --grant client-credentials --client-key "file:$ctx/private_key_pem" \
          --client-key-alg "$(cat "$ctx/signing_algorithm")" "$@" ;;
      auth/wif-jwt-bearer)
        set -- --grant jwt-bearer --assertion "file:$ctx/valid_jwt" "$@" ;;
      auth/enterprise-managed-authorization)
        set -- --grant enterprise --client-secret "file:$ctx/client_secret" \
          --idp-token-endpoint "$(cat "$ctx/idp_token_endpoint")" \
          --idp-client-id "$(cat "$ctx/idp_client_id")" \
          --id-token "file:$ctx/idp_id_token" "$@" ;;
    esac
    "$bin" mcp --call test-tool --action accept "$@" ;;
  auth/*)
    # Signing in with no person: the suite's authorization server answers
    # /authorize with a redirect to our loopback listener at once, and the
    # stand-in browser follows it, so the listener, state and iss checks
    # run as they do for a person. Sign-ins are kept in memory; the
    # suite's client metadata document is offered; pre-registration takes
    # its id and secret from MCP_CONFORMANCE_CONTEXT.
    set -- --auth-store memory \
      --client-metadata-url https://conformance-test.local/client-metadata.json \
      --browser "python3 $here/.ci/mcp/follow-redirects.py" "$@"
    id=$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | python3 -c '
import json, sys
print(json.load(sys.stdin).get("client_id", ""))')
    if [ -n "$id" ]; then
      CONFORMANCE_CLIENT_SECRET=$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | python3 -c '
import json, sys
print(json.load(sys.stdin).get("client_secret", ""))')
      export CONFORMANCE_CLIENT_SECRET
      set -- --client-id "$id" --client-secret env:CONFORMANCE_CLIENT_SECRET "$@"
    fi
    # One process lists and calls the suite's one tool (test-tool), so the
    # whole scenario (a step-up on the call included) is one sign-in.
    exec "$bin" mcp --call test-tool --action accept "$@" ;;
  *)
    only_tool "$@" ;;
esac
