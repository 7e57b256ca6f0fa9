#!/usr/bin/env bash
# Installs both client libraries as a user would, in a temporary folder outside the repository, and uses
# them against a running server: each ingests 1,200 items in one call (split into batches), iterates a
# search for them across pages (12 pages of 100) and reads the memory.
#   the TypeScript package: from the tarball `npm pack` makes (its declarations checked by tsc);
#   the Python package: `pip install` of clients/python into a fresh virtual environment.
#
#   UNIFIED_MEMORY_URL=http://127.0.0.1:8787 UNIFIED_MEMORY_TOKEN=$(npm run -s token -- ada) \
#     scripts/check-client-packages.sh
#
# PYTHON picks the interpreter (default python3). pip builds the package with setuptools: offline with
# --no-build-isolation when the interpreter has setuptools >= 70.1, or setuptools and wheel; otherwise
# with build isolation, which needs an index that serves setuptools (the script says which it used).
set -euo pipefail

: "${UNIFIED_MEMORY_URL:?set UNIFIED_MEMORY_URL to the server}"
: "${UNIFIED_MEMORY_TOKEN:?set UNIFIED_MEMORY_TOKEN to a token with memory:read and items:write}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/um-client-packages-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RUN_ID=$(date +%s)$$

echo "== TypeScript: npm pack, then npm install of the tarball in $WORK/ts"
(cd "$ROOT/clients/typescript" && npm pack --silent --pack-destination "$WORK" >/dev/null)
TARBALL=$(ls "$WORK"/unified-memory-client-*.tgz)
mkdir "$WORK/ts"
cd "$WORK/ts"
printf '{ "name": "package-check", "private": true, "type": "module" }\n' >package.json
npm install --silent --no-audit --no-fund --offline "$TARBALL"

cat >check.ts <<'EOF'
import { UnifiedMemory, type ItemInput, type MemoryResult } from "unified-memory-client";

declare const process: { env: Record<string, string | undefined>; exit(code: number): never };

const um = new UnifiedMemory({ baseUrl: process.env.UNIFIED_MEMORY_URL!, token: process.env.UNIFIED_MEMORY_TOKEN! });
const author = `ts-check-${process.env.RUN_ID}`;
const items: ItemInput[] = Array.from({ length: 1200 }, (_, i) => ({
  source: "ts-package-check",
  externalId: `item-${i}`,
  kind: "note",
  author,
  body: `Package check: note ${i} says the Kestrel review moved to Friday.`,
  occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
}));
const upserted = await um.items.upsert(items);
let hits = 0;
let pages = 0;
for await (const page of um.items.search({ people: author, limit: 100 }).pages()) {
  pages++;
  hits += page.items.length;
}
const memory: MemoryResult = await um.memory.get({ wait: 60 });
const stored = upserted.created + upserted.updated + upserted.unchanged;
console.log(JSON.stringify({ stored, failed: upserted.failed, requests: upserted.requests, hits, pages, memory: memory.status }));
if (stored !== 1200 || upserted.requests < 3 || hits !== 1200 || pages < 12 || memory.status !== "ready") process.exit(1);
EOF
# The package's own declarations, as a TypeScript user compiles against them.
cat >tsconfig.json <<'EOF'
{ "compilerOptions": { "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "lib": ["es2022", "dom"], "types": [], "strict": true, "noEmit": true, "skipLibCheck": false }, "files": ["check.ts"] }
EOF
"$ROOT/node_modules/.bin/tsc" -p tsconfig.json

RUN_ID=$RUN_ID "$ROOT/node_modules/.bin/tsx" check.ts

echo "== Python: pip install of clients/python in a virtual environment in $WORK/py"
"$PYTHON" -m venv --system-site-packages "$WORK/py"
VENV_PYTHON="$WORK/py/bin/python"
if "$VENV_PYTHON" - <<'EOF'
import importlib.util, sys
import setuptools
version = tuple(int(p) for p in setuptools.__version__.split(".")[:2])
sys.exit(0 if version >= (70, 1) or importlib.util.find_spec("wheel") else 1)
EOF
then
  echo "(offline: --no-build-isolation --no-index with the interpreter's setuptools)"
  "$VENV_PYTHON" -m pip install --quiet --no-build-isolation --no-index "$ROOT/clients/python"
else
  echo "(build isolation: $PYTHON has no setuptools >= 70.1 nor setuptools + wheel; pip fetches setuptools from its index)"
  "$VENV_PYTHON" -m pip install --quiet "$ROOT/clients/python"
fi
cd "$WORK"
RUN_ID=$RUN_ID "$VENV_PYTHON" - <<'EOF'
import json, os, sys
from datetime import datetime, timedelta, timezone

import unified_memory
from unified_memory import Client

assert "site-packages" in unified_memory.__file__, unified_memory.__file__  # the installed copy, not the folder
client = Client(os.environ["UNIFIED_MEMORY_URL"], os.environ["UNIFIED_MEMORY_TOKEN"])
author = f"py-check-{os.environ['RUN_ID']}"
start = datetime(2026, 1, 1, tzinfo=timezone.utc)
items = [
    {
        "source": "py-package-check",
        "externalId": f"item-{i}",
        "kind": "note",
        "author": author,
        "body": f"Package check: note {i} says the Kestrel review moved to Friday.",
        "occurredAt": (start + timedelta(minutes=i)).isoformat(),
    }
    for i in range(1200)
]
upserted = client.items.upsert(items)
pages = list(client.items.search(people=author, limit=100).pages())
hits = sum(len(page["items"]) for page in pages)
memory = client.memory.get(wait=60)
stored = upserted.created + upserted.updated + upserted.unchanged
print(json.dumps({"stored": stored, "failed": upserted.failed, "requests": upserted.requests, "hits": hits, "pages": len(pages), "memory": memory["status"]}))
sys.exit(0 if stored == 1200 and upserted.requests >= 3 and hits == 1200 and len(pages) >= 12 and memory["status"] == "ready" else 1)
EOF
echo "== both packages installed and worked"
