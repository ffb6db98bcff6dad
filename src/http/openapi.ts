// The OpenAPI document served at /openapi.json: generated from the routes' zod schemas, then completed with what
// every operation shares (an operationId, the error responses in their `{detail}` shapes, the two credentials), so
// `redocly lint` passes without each route repeating it. Routes whose bodies are read by hand (the tool protocol's
// JSON-RPC text, the agent UI's two request shapes) describe them with `documented(…)`.
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from "@fastify/swagger";
import type { FastifySchema } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";

/**
 * The response of a route that answers 204 with no body: documented as `type: null` (so no content), typed as no
 * payload so the handler's `reply.code(204).send()` needs none.
 */
export const noContent = z.null().describe("No content") as unknown as z.ZodType<undefined>;

/** The 200 of a route that answers with a server-sent event stream. */
export const eventStream = (description: string) => ({
  description,
  content: { "text/event-stream": { schema: z.string().describe("Server-sent events") } },
});

/** Security of a route open to everyone; of one where a credential is optional (the tool protocol in dev). */
export const noCredential: FastifySchema["security"] = [];
export const optionalCredential = [{}, { bearer: [] }, { apiKey: [] }];

const ERROR = { $ref: "#/components/schemas/Error" };
const VALIDATION_ERROR = { $ref: "#/components/schemas/HTTPValidationError" };
const errorSchemas = {
  Error: {
    type: "object",
    properties: { detail: { type: "string", description: "What went wrong" } },
    required: ["detail"],
  },
  HTTPValidationError: {
    type: "object",
    properties: {
      detail: {
        type: "array",
        items: {
          type: "object",
          properties: {
            type: { type: "string", example: "missing" },
            loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
            msg: { type: "string" },
          },
          required: ["type", "loc", "msg"],
        },
      },
    },
    required: ["detail"],
  },
};

/** A `{detail}` error response, for `documented(…)` routes (the shared schema is not known yet when they are read). */
export const errorResponseDocs = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchemas.Error } },
});

/** Documentation of a route whose body or responses no zod schema describes: JSON Schema / OpenAPI as is. */
export interface RouteDocs {
  summary: string;
  description?: string;
  tags: string[];
  security?: unknown[];
  body?: Record<string, unknown>;
  consumes?: string[];
  querystring?: Record<string, unknown>;
  /** `type: "null"` for a response without a body. */
  response: Record<
    string,
    { description: string; type?: "null"; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
}

/** For `config.swaggerTransform`: the route's zod schema (if any) as JSON Schema, with `docs` laid over it. */
export function documented(docs: RouteDocs): SwaggerTransform {
  return (input) => {
    const { schema, url } = jsonSchemaTransform({ ...input, schema: input.schema ?? {} });
    return { url, schema: { ...schema, ...docs } as FastifySchema };
  };
}

export function openapiOptions(version: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      info: {
        title: "agent-platform",
        version,
        description: "Platform API, tool protocol and agent UI",
        license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      },
      servers: [{ url: "http://127.0.0.1:8000", description: "The default address of `agent-platform serve`" }],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "A login token (JWT) or a workspace API key" },
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "A workspace API key (`ap_…`)" },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => completeDocument(jsonSchemaTransformObject(input) as OpenApiDocument),
  };
}

type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type OpenApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

function completeDocument(document: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      operation.operationId ??= operationIdOf(method, path);
      const errors: Record<string, unknown> = {};
      if (operation.security?.length !== 0) errors[401] = errorResponse("Missing or invalid credential");
      if (path.includes("{ws_id}"))
        errors[403] = errorResponse("Not a member of the workspace, or the role is too low");
      if (/\{(?!ws_id\})/.test(path)) errors[404] = errorResponse("Not found (also for a malformed id)");
      const validated = operation.parameters?.some((parameter) => (parameter as { in?: string }).in !== "path");
      if (validated || operation.requestBody) {
        errors[422] = {
          description: "Validation error",
          content: { "application/json": { schema: VALIDATION_ERROR } },
        };
      }
      operation.responses = { ...errors, ...operation.responses };
      // zod's OpenAPI 3.0 form of `null` is a nullable enum, which the generator takes for a body: a 204 has none.
      const empty = operation.responses[204] as { content?: unknown } | undefined;
      if (empty) delete empty.content;
    }
  }
  const schemas = { ...document.components?.schemas, ...errorSchemas };
  return { ...document, components: { ...document.components, schemas: referencedOnly(document, schemas) } };
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ERROR } } });

/** `post /api/v1/workspaces/{ws_id}/issues/` → `post_workspaces_ws_id_issues`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1/, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method, ...words].join("_");
}

/** The schemas some operation or other kept schema refers to (zod emits an input and an output copy of each). */
function referencedOnly(document: OpenApiDocument, schemas: Record<string, unknown>): Record<string, unknown> {
  const kept = new Set<string>();
  let pending = [JSON.stringify(document.paths)];
  while (pending.length) {
    const next: string[] = [];
    for (const text of pending) {
      for (const [, name = ""] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        if (kept.has(name) || !(name in schemas)) continue;
        kept.add(name);
        next.push(JSON.stringify(schemas[name]));
      }
    }
    pending = next;
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name)));
}
