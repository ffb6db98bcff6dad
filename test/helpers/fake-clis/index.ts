// Fake agent CLIs on a PATH of their own: `claude` and `codex` executables (sh wrappers running the node scripts
// beside this file), for runner tests that must not reach a real agent or model.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const here = new URL(".", import.meta.url).pathname;

/** A new folder holding executables named after `names` (claude, codex); put it on PATH. */
export function fakeCliBin(names: readonly ("claude" | "codex")[]): string {
  const bin = mkdtempSync(join(tmpdir(), "fake-clis-"));
  for (const name of names) {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${join(here, `${name}.mjs`)}" "$@"\n`);
    chmodSync(file, 0o755);
  }
  return bin;
}
