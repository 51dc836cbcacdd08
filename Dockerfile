# syntax=docker/dockerfile:1
# k8s-job-executor: a Debian 12 build stage, and a bookworm-slim runtime with only the shared
# libraries the binary links (tests/deploy/dockerfile_test.py checks that list against ldd).

FROM debian:bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends make git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN scripts/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build --target k8s-job-executor \
 && strip -o /k8s-job-executor /build/bin/k8s-job-executor

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates tzdata \
      libabsl20220623 libc-ares2 libcurl4 libgrpc++1.51 libgrpc29 libprotobuf32 libre2-9 libssl3 \
      libprometheus-cpp-core1.0 libstdc++6 libyaml-cpp0.7 zlib1g \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /k8s-job-executor /usr/local/bin/k8s-job-executor
# Numeric, so Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 50051 9090
ENTRYPOINT ["/usr/local/bin/k8s-job-executor"]
CMD ["serve", "--config", "/etc/k8s-job-executor/config.yaml"]
