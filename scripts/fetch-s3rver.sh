#!/usr/bin/env bash
# Installs s3rver (a real S3-compatible server on Node.js) from the npm registry into a per-user
# cache for the staging tests, and prints the path of its command. Silent on stderr when it is
# there already. The directory appears atomically (renamed into place once installed), so its
# presence means it is complete; concurrent runs serialise on a lock file.
#
#   scripts/fetch-s3rver.sh      print the path of bin/s3rver.js (installing it if missing)
set -euo pipefail

readonly kVersion=3.7.1
readonly kNpmFetchTimeoutMs=60000
readonly kInstallTimeoutS=300

cache_home="${XDG_CACHE_HOME:-${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache}"
tools_dir="$cache_home/k8s-job-executor/tools"
dest="$tools_dir/s3rver-$kVersion"
bin="$dest/node_modules/s3rver/bin/s3rver.js"

if [[ -f "$bin" ]]; then
  echo "$bin"
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "fetch-s3rver: npm is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
mkdir -p "$tools_dir"
exec 9>"$tools_dir/.s3rver.lock"
flock -w 600 9
if [[ ! -f "$bin" ]]; then
  tmp=$(mktemp -d "$tools_dir/.s3rver-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "fetch-s3rver: installing s3rver@$kVersion from the npm registry" >&2
  if ! timeout "$kInstallTimeoutS" npm install --prefix "$tmp" --no-audit --no-fund \
    --loglevel=error --fetch-timeout="$kNpmFetchTimeoutMs" --fetch-retries=2 \
    "s3rver@$kVersion" >"$tmp/npm.out" 2>&1; then
    cat "$tmp/npm.out" >&2
    exit 1
  fi
  [[ -f "$tmp/node_modules/s3rver/bin/s3rver.js" ]] || { echo "fetch-s3rver: no s3rver after npm install" >&2; exit 1; }
  rm -f "$tmp/npm.out"
  mv "$tmp" "$dest"
  trap - EXIT
fi
echo "$bin"
