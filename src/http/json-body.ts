// The JSON body parser of the whole server (the tool protocol reads its bodies as text itself), in two ways stricter
// or kinder than Fastify's own:
// - Python HTTP clients (httpx, which PraisonAI's PlatformClient uses) send `Content-Type: application/json` on every
//   request, and `Content-Length: 0` on a POST without a body (e.g. linking a label). Fastify calls that an
//   empty-JSON error; FastAPI treats it as no body. Here an empty body is no body: a route that needs one still
//   answers 422; anything else that is not JSON stays a 422 `json_invalid`.
// - A NUL character (`\u0000`) anywhere in the body is refused with 422: PostgreSQL cannot store it in text, and
//   refusing it here keeps both databases answering the same for every field.
import type { FastifyInstance } from "fastify";
import { invalid } from "./errors.ts";

/** `\u0000` preceded by an even number of backslashes, i.e. an escaped NUL rather than the text "\u0000". */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/** Where the first string holding a NUL sits in a parsed body (keys included), or undefined. */
function pathToNul(value: unknown): (string | number)[] | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? [] : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const index = Array.isArray(value) ? Number(key) : key;
    if (key.includes("\u0000")) return [index];
    const below = pathToNul(child);
    if (below) return [index, ...below];
  }
  return undefined;
}

export function jsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const json = body.toString();
    if (json === "") return done(null, undefined);
    if (!ESCAPED_NUL.test(json)) return parseJson(request, json, done);
    parseJson(request, json, (error, value) => {
      if (error) return done(error, undefined);
      done(invalid(["body", ...(pathToNul(value) ?? [])], "Must not contain NUL characters"), undefined);
    });
  });
  // The same for query values (a NUL in a path id simply names nothing: services answer 404 for malformed ids).
  app.addHook("onRequest", async (request) => {
    const query = request.url.indexOf("?");
    if (query >= 0 && request.url.includes("%00", query)) throw invalid(["query"], "Must not contain NUL characters");
  });
}
