// POST /api/v1/autopilot-hooks/{token}: the secret URL of a webhook trigger. The token is the only credential. An
// Idempotency-Key makes repeats within 24 h answer the first call's run without firing again.
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { text } from "../api/fields.ts";
import type { Db } from "../db/index.ts";
import { timestampAt } from "../db/values.ts";
import { notFound } from "../http/errors.ts";
import { type FireSettings, fire } from "./fire.ts";
import { findHook, hookClaimKey } from "./hook-tokens.ts";
import { fireAnswerSchema, hookParams } from "./schemas.ts";

const HOOK_BODY_LIMIT_BYTES = 256 * 1024;
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

const hookHeaders = z.looseObject({
  "idempotency-key": text(255)
    .trim()
    .min(1)
    .optional()
    .describe("Repeats within 24 h answer 200 `duplicate` with the first call's run_id, without firing again"),
});

export interface HookRouteOptions {
  db: Db;
  settings: FireSettings;
}

/** Registered under `/api/v1`, outside every credential guard. */
export async function autopilotHookRoutes(app: FastifyInstance, options: HookRouteOptions): Promise<void> {
  const { db, settings } = options;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/autopilot-hooks/:token",
    {
      bodyLimit: HOOK_BODY_LIMIT_BYTES,
      config: { secretUrl: true },
      schema: {
        tags: ["autopilots"],
        summary: "Fire an autopilot's webhook trigger with any JSON body (≤ 256 KiB), as `{{payload.<path>}}`",
        security: [],
        params: hookParams,
        headers: hookHeaders,
        body: z.unknown().optional(),
        response: { 200: fireAnswerSchema, 202: fireAnswerSchema },
      },
    },
    async (request, reply) => {
      const key = request.headers["idempotency-key"];
      const hook = await findHook(db, request.params.token, key);
      if (!hook) throw notFound("Autopilot hook");
      const claimKey = key === undefined ? null : hookClaimKey(hook.triggerIndex, key);
      const firedAt = new Date();
      const reclaimBefore = timestampAt(firedAt.getTime() - IDEMPOTENCY_WINDOW_MS);
      // A repeat is answered from what the first call committed, without a transaction or a lock. Calls racing with
      // the first still meet its claim in fire().
      if (hook.claimed !== null && hook.claimed.at >= reclaimBefore) {
        return reply.code(200).send({ status: "duplicate", run_id: hook.claimed.runId });
      }
      const outcome = await fire(
        db,
        {
          workspaceId: hook.workspaceId,
          autopilotId: hook.autopilotId,
          triggerKind: "webhook",
          triggerIndex: hook.triggerIndex,
          claimKey,
          // Only a claim seen here can have grown old: one made meanwhile is new.
          reclaimBefore: hook.claimed === null ? undefined : reclaimBefore,
          firedAt,
          timezone: "UTC",
          payload: request.body,
        },
        settings,
      );
      if (outcome.status === "gone") throw notFound("Autopilot hook");
      if (outcome.status === "duplicate") return reply.code(200).send({ status: "duplicate", run_id: outcome.runId });
      const status = outcome.status === "skipped" ? "skipped" : "accepted";
      return reply.code(202).send({ status, run_id: outcome.runId });
    },
  );
}
