// The runner API's rules, one method per call, given the runner token's standing and the body (never a request).
import type { RunnerCredential } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import { timestampAt } from "../db/values.ts";
import type { WorkSignals } from "../work/signals.ts";
import { stopList } from "./held-tasks.ts";
import { deregisterRunner, leaseOwnerOf, registerRunner, seeRunner } from "./runners.ts";
import type { RegisterInput } from "./schemas.ts";

export interface RunnerSettings {
  leaseMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  runnerOfflineMs: number;
}

export class RunnerService {
  constructor(
    readonly db: Db,
    readonly signals: WorkSignals,
    readonly settings: RunnerSettings,
  ) {}

  register(credential: RunnerCredential, input: RegisterInput) {
    return registerRunner(this.db, credential.workspaceId, input);
  }

  async heartbeat(credential: RunnerCredential, runnerKey: string): Promise<{ cancel: string[] }> {
    const runner = await seeRunner(this.db, credential.workspaceId, runnerKey);
    await this.db
      .updateTable("tasks")
      .set({ lease_expires_at: timestampAt(Date.now() + this.settings.leaseMs) })
      .where("lease_owner", "=", leaseOwnerOf(runner.id))
      .where("status", "=", "running")
      .execute();
    return { cancel: await stopList(this.db, runner.id) };
  }

  deregister(credential: RunnerCredential, runnerKey: string) {
    return deregisterRunner(this.db, credential.workspaceId, runnerKey);
  }

  /** Ends the long polls still open. */
  async close(): Promise<void> {}
}
