// How the skill routes whose bodies are read by hand (JSON or a zip; a file's raw bytes) read in the OpenAPI document.
import type { SwaggerTransform } from "@fastify/swagger";
import type { FastifySchema } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { z } from "zod";
import { skillFilesBody } from "./schemas.ts";

const { $schema: _dialect, ...filesJsonSchema } = z.toJSONSchema(skillFilesBody, { io: "input" });

/** The route's zod schemas as JSON Schema, with the two bodies a skill folder may come in. */
export const folderBodyDocs: SwaggerTransform = (input) => {
  const { schema, url } = jsonSchemaTransform({ ...input, schema: input.schema ?? {} });
  const body = {
    content: {
      "application/json": { schema: filesJsonSchema },
      "application/zip": {
        schema: { type: "string", format: "binary", description: "A zip of the folder, up to 5 MiB" },
      },
    },
  };
  return { url, schema: { ...schema, body } as FastifySchema };
};

/**
 * The route's zod schemas as JSON Schema, answering a file's bytes; the wildcard that takes the rest of the path
 * (nested folders as segments) reads as a parameter named `path`.
 */
export const fileResponseDocs: SwaggerTransform = (input) => {
  const { schema, url } = jsonSchemaTransform({ ...input, schema: input.schema ?? {} });
  const params = schema.params as { properties: Record<string, unknown>; required?: string[] };
  const { "*": rest, ...named } = params.properties;
  const withPath = {
    ...params,
    properties: { ...named, path: { ...(rest as object), description: "The file's path, e.g. scripts/run.py" } },
    required: (params.required ?? []).map((name) => (name === "*" ? "path" : name)),
  };
  const response = {
    200: {
      description: "The file's bytes: text/plain or text/markdown (UTF-8) for text, application/octet-stream else",
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    },
  };
  return { url: url.replace(/\*$/, ":path"), schema: { ...schema, params: withPath, response } as FastifySchema };
};
