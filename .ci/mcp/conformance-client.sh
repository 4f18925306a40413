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
  *)
    exec "$bin" mcp --action accept "$@" ;;
esac
