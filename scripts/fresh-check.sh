#!/usr/bin/env bash
# Reproduces a new user's machine: a minimal Debian 12 (debootstrap --variant=minbase with only
# ca-certificates, git and make), a clone of this checkout's current commit with ../shared beside
# it (as CI has it), then the README's two commands inside it with CI=true, printing each one's
# result and time. Needs root (debootstrap, chroot, mounts); installs debootstrap when missing.
#
#   scripts/fresh-check.sh [DIR]     DIR defaults to /var/tmp/kje-fresh-check (made anew each run)
#
# Env: FRESH_MIRROR (default http://deb.debian.org/debian), FRESH_KEEP=1 keeps DIR afterwards.
# Exit status 0 only when both commands passed. `make fresh-check` runs it.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$src/../shared" 2>/dev/null && pwd)" || {
  echo "fresh-check: ../shared is not beside the checkout ($src/../shared)" >&2
  exit 2
}
dir="${1:-/var/tmp/kje-fresh-check}"
mirror="${FRESH_MIRROR:-http://deb.debian.org/debian}"
((EUID == 0)) || { echo "fresh-check: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
[[ "$dir" == / || -z "$dir" ]] && { echo "fresh-check: refusing DIR=$dir" >&2; exit 2; }
commit="$(git -C "$src" rev-parse HEAD)"
if [[ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]]; then
  echo "fresh-check: note: uncommitted changes are not checked, only commit $commit" >&2
fi

if ! command -v debootstrap >/dev/null; then
  echo "fresh-check: installing debootstrap" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if [[ "${FRESH_KEEP:-0}" != 1 ]]; then rm -rf --one-file-system "$dir"; fi
}
trap cleanup EXIT

# timed LABEL CMD...: runs CMD, prints LABEL's result and wall time; returns CMD's status.
results=()
timed() {
  local label="$1" start rc
  shift
  start=$(date +%s)
  set +e
  "$@"
  rc=$?
  set -e
  local secs=$(($(date +%s) - start))
  local line
  line="$(printf 'fresh-check: %-34s %s in %dm%02ds' "$label" \
    "$( ((rc == 0)) && echo passed || echo "FAILED ($rc)")" $((secs / 60)) $((secs % 60)))"
  echo "$line" >&2
  results+=("$line")
  return $rc
}

rm -rf --one-file-system "$dir"
mkdir -p "$dir"
timed "debootstrap minbase bookworm" \
  debootstrap --variant=minbase --include=ca-certificates,git,make bookworm "$dir" "$mirror" \
  >"$dir.debootstrap.log" 2>&1 || { tail -20 "$dir.debootstrap.log" >&2; exit 1; }

for m in proc sys dev dev/pts; do
  mkdir -p "$dir/$m"
  case "$m" in
    proc) mount -t proc proc "$dir/proc" ;;
    sys) mount -t sysfs sys "$dir/sys" ;;
    *) mount --bind "/$m" "$dir/$m" ;;
  esac
  mounted+=("$dir/$m")
done
mkdir -p "$dir/dev/shm"
mount -t tmpfs tmpfs "$dir/dev/shm" && mounted+=("$dir/dev/shm")
cp -L /etc/resolv.conf "$dir/etc/resolv.conf"
# What every real machine has and a minbase tree lacks: the installer (or a container runtime)
# writes /etc/hosts, so "localhost" resolves; the tests' TLS checks name the server "localhost".
[[ -e "$dir/etc/hosts" ]] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
  >"$dir/etc/hosts"
# The network's own trust, not the machine's packages: where egress passes a TLS-inspecting proxy,
# a new machine on that network has its CA (here in /usr/local/share/ca-certificates, with
# NODE_EXTRA_CA_CERTS for npm), so the chroot gets the same.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$dir/usr/local/share/ca-certificates"
  cp -L /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
  chroot "$dir" update-ca-certificates >/dev/null 2>&1
fi
extra_env=()
[[ -n "${NODE_EXTRA_CA_CERTS:-}" ]] &&
  extra_env+=("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt")

# The clone is of the commit, not of the working tree; shared/ is copied beside it as CI has it.
git clone -q "$src" "$dir/work/main"
git -C "$dir/work/main" checkout -q "$commit"
cp -a "$shared" "$dir/work/shared"

run_inside() {
  chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 CI=true TERM=dumb "${extra_env[@]}" /bin/bash -c "cd /work/main && $1"
}
rc=0
timed "make demo" run_inside "make demo" >"$dir.demo.log" 2>&1 || rc=1
timed "make test" run_inside "make test" >"$dir.test.log" 2>&1 || rc=1
for log in demo test; do
  echo "--- make $log (last 15 lines of $dir.$log.log) ---" >&2
  tail -15 "$dir.$log.log" >&2
done
echo >&2
printf '%s\n' "${results[@]}" >&2
exit $rc
