#!/bin/sh
# The client command given to the MCP conformance suite
# (`conformance client --command .ci/mcp/conformance-client.sh`): the suite
# appends the server URL and sets MCP_CONFORMANCE_SCENARIO; this picks the
# arguments the scenario expects. AHP_ELICIT_BIN is the binary under test
# (default: target/debug/ahp-elicit of this checkout).
set -eu
here="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${AHP_ELICIT_BIN:-$here/target/debug/ahp-elicit}"
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call)
    exec "$bin" mcp --call add_numbers --args '{"a":5,"b":3}' --action accept "$@" ;;
  json-schema-2020-12-preservation)
    # (0.2.0 pre-releases) Echo the focal tool's inputSchema, as listed by
    # `ahp-elicit mcp` (verbatim), through the echo tool.
    for url; do :; done
    schema=$("$bin" mcp --action accept "$url" | python3 -c '
import json, sys
tools = json.load(sys.stdin)["tools"]
focal = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")
print(json.dumps({"schema": focal["inputSchema"]}))')
    exec "$bin" mcp --call json_schema_echo --args "$schema" --action accept "$url" ;;
  *)
    exec "$bin" mcp --action accept "$@" ;;
esac
