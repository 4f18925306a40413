#!/usr/bin/env bash
# Install the official MCP SDKs the real-server form tests use
# (tests/mcp/python_sdk.rs, tests/mcp/typescript_sdk.rs; servers in tests/servers/):
#   Python: `mcp` (with pydantic) from PyPI, pinned in .ci/sdk/requirements.txt,
#           into the virtual environment .ci/sdk/venv (git-ignored);
#   Node:   @modelcontextprotocol/sdk and zod from npm, pinned in
#           .ci/sdk/node/package.json and, with every transitive package, in
#           .ci/sdk/node/package-lock.json, into .ci/sdk/node/node_modules
#           (git-ignored).
# Idempotent: what already matches the pins is not fetched again. Contacts
# only PyPI and the npm registry. Needs python3 (3.10 or newer, with venv),
# node (20 or newer) and npm. The tests skip with a notice when the SDKs are
# missing, so a plain `cargo test` works without this.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sdk="$here/sdk"

command -v python3 >/dev/null || { echo "sdk-setup: python3 is not installed" >&2; exit 2; }
command -v node >/dev/null || { echo "sdk-setup: node is not installed" >&2; exit 2; }
command -v npm >/dev/null || { echo "sdk-setup: npm is not installed" >&2; exit 2; }

# Python SDK.
venv="$sdk/venv"
want=$(grep -E '^mcp==' "$sdk/requirements.txt" | cut -d= -f3)
have=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
if [[ "$have" == "$want" ]]; then
  echo "sdk-setup: python mcp $have already in $venv"
else
  echo "sdk-setup: python3 -m venv $venv; pip install -r requirements.txt (mcp==$want)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$sdk/requirements.txt"
fi
"$venv/bin/python" -c 'import importlib.metadata as m; print("sdk-setup: python mcp", m.version("mcp"), "pydantic", m.version("pydantic"))'

# TypeScript SDK and zod.
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
  npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error
fi
for p in @modelcontextprotocol/sdk zod; do
  v=$(node -p "require('$node_dir/node_modules/$p/package.json').version")
  echo "sdk-setup: $p $v"
done
