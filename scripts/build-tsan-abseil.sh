#!/usr/bin/env bash
# Builds Debian's own Abseil (the source of the installed libabsl-dev, Debian's patches applied)
# with -fsanitize=thread into DEST, as shared libraries with the system ones' sonames.
#
# Why: absl::Mutex is a futex-based lock of Abseil's own. An uninstrumented build hides its
# happens-before from ThreadSanitizer, which then reports every access guarded by it as a race.
# Loaded ahead of the system copy (LD_LIBRARY_PATH), the instrumented libraries serve our code and
# gRPC alike, so the process holds one Abseil and TSan sees every lock.
#
# The source comes through a private apt configuration (deb-src entries in DEST only): the
# machine's sources stay as they are. Idempotent: a finished build is kept (DEST/.built names the
# version it was built from) and rebuilt only when libabsl-dev's version changes.
# Usage: scripts/build-tsan-abseil.sh DEST
set -euo pipefail

dest=$(realpath -m "${1:?usage: build-tsan-abseil.sh DEST}")
version=$(dpkg-query -W -f='${Version}' libabsl-dev)
if [[ -f "$dest/.built" && "$(cat "$dest/.built")" == "$version" ]]; then
  exit 0
fi

work="$dest/work"
rm -rf "$work" "$dest/install"
mkdir -p "$work/apt/lists/partial" "$work/dl"
cat >"$work/apt/sources.list" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -qq)
echo "build-tsan-abseil: fetching Debian's abseil $version source" >&2
apt-get "${apt_opts[@]}" update
(cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only "abseil=$version" 2>/dev/null)
dpkg-source -x "$work"/dl/abseil_*.dsc "$work/src" >/dev/null

# Debian's shared-library configuration (debian/rules), plus the sanitizer.
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
echo "build-tsan-abseil: building it with -fsanitize=thread (several minutes on 2 cores)" >&2
cmake -S "$work/src" -B "$work/build" -G Ninja "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON \
  -DBUILD_TESTING=OFF -DABSL_BUILD_TESTING=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_INSTALL_PREFIX="$dest/install" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
cmake --build "$work/build" -j "${JOBS:-$(nproc)}" >/dev/null
cmake --install "$work/build" >/dev/null
rm -rf "$work"
echo "$version" >"$dest/.built"
echo "build-tsan-abseil: done: $dest/install" >&2
