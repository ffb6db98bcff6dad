import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../api/access.ts";
import { deleteRoute } from "../api/delete-route.ts";
import { pageQuery } from "../api/pagination.ts";
import { workspaceParams } from "../api/params.ts";
import type { Db } from "../db/index.ts";
import { HttpError, ValidationError, validationIssue } from "../http/errors.ts";
import { type SkillFolder, utf8Text } from "./folder.ts";
import { folderFromJson, folderFromZip } from "./input.ts";
import { MAX_ZIP_BYTES } from "./limits.ts";
import { fileResponseDocs, folderBodyDocs } from "./openapi.ts";
import { skillFileParams, skillFilesBody, skillParams, skillSchema } from "./schemas.ts";
import { createSkill, deleteSkill, getSkill, listSkills, readSkillFile, replaceSkill } from "./service.ts";

const tags = ["skills"];

/** Registered under `/workspaces/:ws_id`, inside the membership guard. */
export async function skillRoutes(app: FastifyInstance, { db }: { db: Db }): Promise<void> {
  acceptZipBodies(app);
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    "/skills",
    {
      config: { swaggerTransform: folderBodyDocs },
      schema: {
        tags,
        summary: "Create a skill from its files (JSON) or a zip of its folder; name and description from SKILL.md",
        params: workspaceParams,
        response: { 201: skillSchema },
      },
    },
    async (request, reply) => {
      const folder = await folderOf(request);
      return reply.code(201).send(await createSkill(db, request.params.ws_id, folder, actorOf(request)));
    },
  );

  routes.get(
    "/skills",
    {
      schema: {
        tags,
        summary: "Skills of the workspace, by name",
        params: workspaceParams,
        querystring: pageQuery,
        response: { 200: z.array(skillSchema) },
      },
    },
    async (request) => listSkills(db, request.params.ws_id, request.query),
  );

  routes.get(
    "/skills/:skill_id",
    { schema: { tags, summary: "A skill and its files", params: skillParams, response: { 200: skillSchema } } },
    async (request) => getSkill(db, request.params.ws_id, request.params.skill_id),
  );

  routes.put(
    "/skills/:skill_id",
    {
      config: { swaggerTransform: folderBodyDocs },
      schema: {
        tags,
        summary: "Replace a skill's files, and so maybe its name (admin or the skill's creator)",
        params: skillParams,
        response: { 200: skillSchema },
      },
    },
    async (request) => {
      const folder = await folderOf(request);
      return replaceSkill(db, request.membership, request.params.skill_id, folder, actorOf(request));
    },
  );

  deleteRoute(
    app,
    "/skills/:skill_id",
    { tags, summary: "Delete a skill and take it off every agent (admin or the skill's creator)", params: skillParams },
    (request) => deleteSkill(db, request.membership, request.params.skill_id, actorOf(request)),
  );

  routes.get(
    "/skills/:skill_id/files/*",
    {
      config: { swaggerTransform: fileResponseDocs },
      schema: { tags, summary: "One file of a skill (nested paths as path segments)", params: skillFileParams },
    },
    async (request, reply) => {
      const { ws_id, skill_id, "*": path } = request.params;
      const file = await readSkillFile(db, ws_id, skill_id, path);
      const text = utf8Text(file.content) !== undefined;
      const type = !text
        ? "application/octet-stream"
        : file.path.endsWith(".md")
          ? "text/markdown; charset=utf-8"
          : "text/plain; charset=utf-8";
      // Whatever a skill holds, a browser that opens it renders no page and runs no script from this origin.
      return reply
        .type(type)
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .send(file.content);
    },
  );
}

/** The folder a create or replace sends: a zip body, or JSON checked against its schema. */
async function folderOf(request: FastifyRequest): Promise<SkillFolder> {
  if (Buffer.isBuffer(request.body)) return folderFromZip(request.body);
  const parsed = skillFilesBody.safeParse(request.body);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) =>
        validationIssue(
          issue.code,
          ["body", ...issue.path.map((key) => (typeof key === "symbol" ? "" : key))],
          issue.message,
        ),
      ),
    );
  }
  return folderFromJson(parsed.data);
}

/** `application/zip` bodies up to 5 MiB, read as bytes; a larger one is a 413 saying the limit. */
function acceptZipBodies(app: FastifyInstance): void {
  const tooLarge = () => new HttpError(413, "Zip too large (limit 5 MiB)");
  app.addContentTypeParser("application/zip", async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    if (Number(request.headers["content-length"] ?? 0) > MAX_ZIP_BYTES) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ZIP_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  });
}
