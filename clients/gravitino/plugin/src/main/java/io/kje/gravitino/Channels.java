package io.kje.gravitino;

import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.kje.jobexecutor.v1.JobExecutorGrpc;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/** Builds the channel to the service from the configuration. */
final class Channels {
  // The RPCs the plugin calls; the proto declares all of them idempotent or side-effect free,
  // so an UNAVAILABLE answer is safe to retry (Submit adopts the application of a retried job;
  // uploads are content-addressed, and gRPC replays only what its retry buffer still holds).
  static final List<String> RETRIED_METHODS = List.of("Submit", "Status", "Cancel", "Output",
      "UploadArtifacts");

  private Channels() {}

  static ManagedChannel open(KjeJobExecutorConfig config) {
    NettyChannelBuilder b = NettyChannelBuilder.forTarget(config.target());
    if (config.tls()) {
      b.negotiationType(NegotiationType.TLS).sslContext(sslContext(config));
      if (config.serverName() != null) {
        b.overrideAuthority(config.serverName());
      }
    } else {
      b.usePlaintext();
    }
    if (config.keepAliveTimeMs() > 0) {
      b.keepAliveTime(config.keepAliveTimeMs(), TimeUnit.MILLISECONDS)
          .keepAliveTimeout(config.keepAliveTimeoutMs(), TimeUnit.MILLISECONDS);
    }
    // The service config is ours alone: a DNS TXT record must not change the retry policy.
    b.disableServiceConfigLookUp().defaultServiceConfig(serviceConfig(config));
    if (config.retryMaxAttempts() > 1) {
      b.enableRetry().maxRetryAttempts(config.retryMaxAttempts());
    } else {
      b.disableRetry();
    }
    b.userAgent("kje-gravitino-plugin");
    return b.build();
  }

  /** The gRPC service config, in the JSON-like form grpc-java takes (numbers as doubles). */
  static Map<String, Object> serviceConfig(KjeJobExecutorConfig config) {
    List<Object> names = new ArrayList<>();
    for (String method : RETRIED_METHODS) {
      Map<String, Object> name = new LinkedHashMap<>();
      name.put("service", JobExecutorGrpc.SERVICE_NAME);
      name.put("method", method);
      names.add(name);
    }
    Map<String, Object> methodConfig = new LinkedHashMap<>();
    methodConfig.put("name", names);
    if (config.retryMaxAttempts() > 1) {
      Map<String, Object> retry = new LinkedHashMap<>();
      retry.put("maxAttempts", (double) config.retryMaxAttempts());
      retry.put("initialBackoff", duration(config.retryInitialBackoffMs()));
      retry.put("maxBackoff", duration(config.retryMaxBackoffMs()));
      retry.put("backoffMultiplier", config.retryBackoffMultiplier());
      retry.put("retryableStatusCodes", List.of("UNAVAILABLE"));
      methodConfig.put("retryPolicy", retry);
    }
    Map<String, Object> serviceConfig = new LinkedHashMap<>();
    serviceConfig.put("methodConfig", List.of(methodConfig));
    return serviceConfig;
  }

  static String duration(long ms) {
    return String.format("%d.%03ds", ms / 1000, ms % 1000);
  }

  /**
   * The TLS context, built now so a bad file fails initialize naming its key. It goes through
   * OpenSSL (netty-tcnative, bundled): gRPC needs ALPN, which the netty build this jar bundles
   * can't do with the JDK's TLS.
   */
  static SslContext sslContext(KjeJobExecutorConfig config) {
    if (!OpenSsl.isAvailable()) {
      Throwable cause = OpenSsl.unavailabilityCause();
      throw new IllegalArgumentException(
          "tls.* is set but TLS can't work: the plugin's bundled netty-tcnative library did not"
              + " load (" + (cause == null ? "unknown cause" : cause.toString()) + "). It links"
              + " libssl.so.3, libcrypto.so.3, libapr-1.so.0 and libuuid.so.1; install them"
              + " (e.g. libssl3 libapr1 libuuid1) on the Gravitino server",
          cause);
    }
    try {
      SslContextBuilder trust = GrpcSslContexts.forClient();
      if (config.caFile() != null) {
        trust.trustManager(config.caFile());
      }
      if (config.certFile() == null) {
        return trust.build();
      }
      trust.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          KjeJobExecutorConfig.TLS_CA_FILE + " holds no usable PEM CA certificate: "
              + config.caFile() + " (" + e.getMessage() + ")",
          e);
    }
    try {
      SslContextBuilder b = GrpcSslContexts.forClient();
      if (config.caFile() != null) {
        b.trustManager(config.caFile());
      }
      b.keyManager(config.certFile(), config.keyFile());
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          KjeJobExecutorConfig.TLS_CERT_FILE + "/" + KjeJobExecutorConfig.TLS_KEY_FILE
              + " hold no usable PEM certificate and PKCS#8 key: " + config.certFile() + ", "
              + config.keyFile() + " (" + e.getMessage() + ")",
          e);
    }
  }
}
