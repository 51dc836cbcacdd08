package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Map;
import org.apache.gravitino.exceptions.NoSuchJobException;
import org.junit.jupiter.api.Test;

class RpcErrorsTest {
  private static final KjeJobExecutorConfig CONFIG =
      KjeJobExecutorConfig.parse(Map.of("target", "kje.example:50051", "retry.maxAttempts", "3",
          "statusDeadlineMs", "1234"));

  private static RuntimeException map(Status s, String rpc, String id) {
    return RpcErrors.toException(new StatusRuntimeException(s), rpc, id, CONFIG);
  }

  @Test
  void invalidArgumentCarriesTheServicesReason() {
    RuntimeException e = map(Status.INVALID_ARGUMENT.withDescription(
        "executable must be a URI reachable from the cluster"), "Submit", null);
    assertSame(IllegalArgumentException.class, e.getClass());
    assertEquals("executable must be a URI reachable from the cluster", e.getMessage());
  }

  @Test
  void notFoundIsNoSuchJobEvenWithAPercentInTheText() {
    RuntimeException e = map(Status.NOT_FOUND.withDescription("app 50%d gone %s"), "Status",
        "default/sparkapp/default/x-1");
    assertSame(NoSuchJobException.class, e.getClass());
    assertEquals("Job default/sparkapp/default/x-1 not found: app 50%d gone %s", e.getMessage());
    assertTrue(map(Status.NOT_FOUND, "Cancel", "a%sb") instanceof NoSuchJobException);
  }

  @Test
  void alreadyExists() {
    assertSame(IllegalStateException.class,
        map(Status.ALREADY_EXISTS.withDescription("held"), "Submit", null).getClass());
  }

  @Test
  void unavailableAndDeadlineNameTheTarget() {
    RuntimeException u = map(Status.UNAVAILABLE.withDescription("io exception"), "Status", "j");
    assertSame(RuntimeException.class, u.getClass());
    assertEquals("k8s-job-executor at kje.example:50051 is unavailable for Status after up to 3"
        + " attempts (retry.maxAttempts): io exception", u.getMessage());
    RuntimeException d = map(Status.DEADLINE_EXCEEDED, "Status", "j");
    assertEquals("k8s-job-executor at kje.example:50051 did not answer Status within its deadline"
        + " (statusDeadlineMs=1234): DEADLINE_EXCEEDED", d.getMessage());
  }

  @Test
  void credentialsAndOthers() {
    RuntimeException a = map(Status.UNAUTHENTICATED.withDescription(
        "missing or invalid bearer token"), "Submit", null);
    assertEquals("k8s-job-executor at kje.example:50051 rejected the plugin's credentials on"
        + " Submit (check tokenFile): missing or invalid bearer token", a.getMessage());
    RuntimeException i = map(Status.INTERNAL.withDescription("boom"), "Cancel", "j");
    assertSame(RuntimeException.class, i.getClass());
    assertEquals("k8s-job-executor at kje.example:50051 failed Cancel (INTERNAL): boom",
        i.getMessage());
    assertTrue(i.getCause() instanceof StatusRuntimeException);
  }
}
