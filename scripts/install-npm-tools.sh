#!/usr/bin/env bash
# Installs the Node.js tools goheap's export tests check against into DIR
# (the build directory's npm/): memlab's core, which loads .heapsnapshot
# files and computes retained sizes the way Chrome DevTools does, and
# playwright-core, which drives Debian's chromium through the web UI
# (tests/serve/ui_check.js), and the official MCP TypeScript SDK with ajv,
# which talk to `goheap mcp` and `goheap serve`'s /mcp as an AI assistant's
# client does and check the tools' schemas (tests/mcp/mcp_check.js). Pinned;
# run once, then cached (nothing is done when the version is there).
# Without npm, or offline, it says so and succeeds, so that a developer's
# test run skips those tests; under CI=true it fails instead.
#   scripts/install-npm-tools.sh build/npm
set -euo pipefail
dir=${1:?usage: install-npm-tools.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
memlab_version=2.0.5
playwright_version=1.56.1
mcp_sdk_version=1.32.2
ajv_version=8.20.0

fail() {
  echo "install-npm-tools: $*" >&2
  if [ "${CI:-}" = true ]; then exit 1; fi
  echo "install-npm-tools: the tests that need it will be skipped" >&2
  exit 0
}

installed=$(node -p "require('$dir/node_modules/@memlab/core/package.json').version" 2>/dev/null || true)
installed_pw=$(node -p "require('$dir/node_modules/playwright-core/package.json').version" 2>/dev/null || true)
installed_mcp=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true)
installed_ajv=$(node -p "require('$dir/node_modules/ajv/package.json').version" 2>/dev/null || true)
if [ "$installed" = "$memlab_version" ] && [ "$installed_pw" = "$playwright_version" ] &&
  [ "$installed_mcp" = "$mcp_sdk_version" ] && [ "$installed_ajv" = "$ajv_version" ]; then exit 0; fi
command -v npm >/dev/null || fail "npm is not installed (scripts/install-deps.sh installs it)"
# --ignore-scripts: memlab depends on puppeteer, whose install script
# downloads a browser; loading a snapshot needs none.
PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts \
  --loglevel=error "@memlab/core@$memlab_version" "playwright-core@$playwright_version" \
  "@modelcontextprotocol/sdk@$mcp_sdk_version" "ajv@$ajv_version" >&2 ||
  fail "npm install @memlab/core@$memlab_version playwright-core@$playwright_version @modelcontextprotocol/sdk@$mcp_sdk_version ajv@$ajv_version failed"
