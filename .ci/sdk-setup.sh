#!/usr/bin/env bash
# Install the official MCP SDKs the real-server form tests use
# (tests/mcp/python_sdk.rs, tests/mcp/typescript_sdk.rs,
# tests/mcp/sdk_both_eras.rs, tests/mcp/python_auth.rs, tests/mcp/grants.rs,
# tests/mcp/sampling_roots.rs; servers in tests/servers/):
#   Python: `mcp` (with pydantic) and `fastmcp` from PyPI, pinned in
#           .ci/sdk/requirements.txt, into the virtual environment
#           .ci/sdk/venv (git-ignored);
#   Node:   @modelcontextprotocol/sdk (v1), @modelcontextprotocol/server
#           (v2, the 2026-07-28 line), @modelcontextprotocol/node (its
#           node:http adapter) and zod from npm, pinned in
#           .ci/sdk/node/package.json and, with every transitive package, in
#           .ci/sdk/node/package-lock.json, into .ci/sdk/node/node_modules
#           (git-ignored).
# Idempotent: what already matches the pins is not fetched again. Contacts
# only PyPI and the npm registry; never prompts (works with no TTY and no
# stdin). Needs python3 (3.10 or newer, with venv), node (20 or newer) and
# npm. The tests skip with a notice when the SDKs are missing, so a plain
# `cargo test` works without this.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sdk="$here/sdk"

command -v python3 >/dev/null || { echo "sdk-setup: python3 is not installed" >&2; exit 2; }
command -v node >/dev/null || { echo "sdk-setup: node is not installed" >&2; exit 2; }
command -v npm >/dev/null || { echo "sdk-setup: npm is not installed" >&2; exit 2; }

# Python SDK and fastmcp: every `name==version` line of requirements.txt
# must be installed at that version, or pip installs the file again.
venv="$sdk/venv"
pins=$(grep -E '^[A-Za-z0-9_.-]+==' "$sdk/requirements.txt" | tr '\n' ' ')
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" - $pins <<'PY'
import importlib.metadata as m, sys
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        have = m.version(name)
    except m.PackageNotFoundError:
        sys.exit(1)
    if have != want:
        sys.exit(1)
PY
then
  echo "sdk-setup: python packages already in $venv (match requirements.txt)"
else
  echo "sdk-setup: python3 -m venv $venv; pip install -r requirements.txt ($pins)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input \
    -r "$sdk/requirements.txt" </dev/null
fi
"$venv/bin/python" -c 'import importlib.metadata as m; print("sdk-setup: python", *(f"{p} {m.version(p)}" for p in ("mcp", "pydantic", "fastmcp")))' </dev/null

# TypeScript SDKs (v1 and v2), the v2 node:http adapter and zod.
node_dir="$sdk/node"
want_lock="$node_dir/package-lock.json"
have_lock="$node_dir/node_modules/.package-lock.json"
if [[ -f "$have_lock" ]] && node -e '
      const w = require(process.argv[1]).packages, h = require(process.argv[2]).packages;
      for (const [k, v] of Object.entries(w)) {
        if (k === "") continue;
        if (!h[k] || h[k].version !== v.version) process.exit(1);
      }' "$want_lock" "$have_lock"; then
  echo "sdk-setup: node packages already in $node_dir/node_modules (match package-lock.json)"
else
  echo "sdk-setup: npm ci --prefix $node_dir (pinned by $want_lock)"
  npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error </dev/null
fi
for p in @modelcontextprotocol/sdk @modelcontextprotocol/server @modelcontextprotocol/node zod; do
  v=$(node -p "require('$node_dir/node_modules/$p/package.json').version")
  echo "sdk-setup: $p $v"
done
