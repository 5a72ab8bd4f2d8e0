#!/usr/bin/env bash
# The UI alone: type-check, build ui/dist, then the headless-Chromium tests (mocked IPC).
# Screenshots land in ui/tests/shots/. The view-state modules (.svelte.ts) are tested in node first,
# without a DOM (tests/unit/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../ui"
[[ -d node_modules ]] || { echo "test-ui: ui/node_modules missing; run scripts/setup.sh first" >&2; exit 1; }
npm run --silent check
npm run --silent build
npm run --silent test:unit
npm test
