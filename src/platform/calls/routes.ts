import { createReadStream } from "node:fs";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageQuery } from "../../api/pagination.ts";
import { workspaceParams } from "../../api/params.ts";
import type { Db } from "../../db/index.ts";
import { documented } from "../../http/openapi.ts";
import { callParams, callSchema, callSummarySchema } from "./schemas.ts";
import { findRecording, getCall, listCalls } from "./service.ts";

const tags = ["calls"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard: any member reads the call log. */
export async function callRoutes(
  app: FastifyInstance,
  { db, recordingsDir }: { db: Db; recordingsDir: string },
): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/calls/",
    {
      schema: {
        tags,
        summary: "Voice calls recorded under the workspace (CALL_WORKSPACE_ID), newest first",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(callSummarySchema) },
      },
    },
    async (request) => listCalls(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/calls/:call_id",
    {
      schema: {
        tags,
        summary: "A voice call with its transcript",
        params: callParams,
        response: { 200: callSchema },
      },
    },
    async (request) => getCall(db, recordingsDir, request.params.ws_id, request.params.call_id),
  );

  routes.get(
    "/calls/:call_id/recording",
    {
      config: {
        swaggerTransform: documented({
          tags,
          summary: "The call's recording: both sides mixed, 8 kHz 16-bit mono WAV (calls made with CALL_RECORDING)",
          response: {
            200: {
              description: "The WAV file",
              content: { "audio/wav": { schema: { type: "string", format: "binary" } } },
            },
          },
        }),
      },
      schema: { params: callParams },
    },
    async (request, reply) => {
      const recording = await findRecording(db, recordingsDir, request.params.ws_id, request.params.call_id);
      return reply
        .type("audio/wav")
        .header("content-length", recording.bytes)
        .header("x-content-type-options", "nosniff")
        .send(createReadStream(recording.path));
    },
  );
}
