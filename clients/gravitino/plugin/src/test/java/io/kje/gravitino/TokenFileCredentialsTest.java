package io.kje.gravitino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenFileCredentialsTest {
  @TempDir Path dir;

  @Test
  void readsTrimsAndRereadsARotatedFile() throws IOException {
    Path token = dir.resolve("token");
    Files.writeString(token, "first-token\n");
    TokenFileCredentials c = new TokenFileCredentials(token);
    assertEquals("first-token", c.currentToken());
    // Rotated as a Secret volume does it: a new file renamed over the old one.
    Path next = dir.resolve("token.new");
    Files.writeString(next, "second-token\n");
    Files.move(next, token, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertEquals("second-token", c.currentToken());
  }

  @Test
  void emptyOrMissingOrUnprintable() throws IOException {
    Path token = dir.resolve("token");
    Files.writeString(token, " \n");
    IOException e = assertThrows(IOException.class, () -> new TokenFileCredentials(token));
    assertEquals("the file is empty", e.getMessage());
    Files.writeString(token, "a\u00e9b");
    assertThrows(IOException.class, () -> new TokenFileCredentials(token));
    assertThrows(IOException.class, () -> new TokenFileCredentials(dir.resolve("missing")));
  }
}
