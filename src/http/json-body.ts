// The JSON body parser of the whole server (the tool protocol reads its bodies as text itself), in ways stricter
// or kinder than Fastify's own:
// - Python HTTP clients (httpx, which PraisonAI's PlatformClient uses) send `Content-Type: application/json` on every
//   request, and `Content-Length: 0` on a POST without a body (e.g. linking a label). Fastify calls that an
//   empty-JSON error; FastAPI treats it as no body. Here an empty body is no body: a route that needs one still
//   answers 422; anything else that is not JSON stays a 422 `json_invalid`.
// - A NUL character (`\u0000`) anywhere in the body is refused with 422: PostgreSQL cannot store it in text, and
//   refusing it here keeps both databases answering the same for every field.
// - So is a lone surrogate (`\ud800` without its pair): PostgreSQL's driver would store U+FFFD instead and SQLite the
//   broken text, both silently; neither is what the caller sent.
// - Nesting deeper than MAX_JSON_DEPTH is refused with 422: no field needs it, and every recursive walk over the
//   value (validation, comparison, serialisation) would otherwise run thousands of frames deep.
import type { FastifyInstance } from "fastify";
import { invalid } from "./errors.ts";

const MAX_JSON_DEPTH = 32;

/** `\u0000` preceded by an even number of backslashes, i.e. an escaped NUL rather than the text "\u0000". */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;
/** An escaped UTF-16 surrogate (paired or not): only then can the parsed value hold a lone one. */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;
/** A surrogate that is not part of a pair (with the `u` flag, a pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Where the first string for which `bad` holds sits in a parsed body (keys included), or undefined. */
function pathTo(value: unknown, bad: (text: string) => boolean): (string | number)[] | undefined {
  if (typeof value === "string") return bad(value) ? [] : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const index = Array.isArray(value) ? Number(key) : key;
    if (bad(key)) return [index];
    const below = pathTo(child, bad);
    if (below) return [index, ...below];
  }
  return undefined;
}

/** Where the value first nests deeper than `limit` objects and arrays, or undefined; never walks below `limit`. */
function pathTooDeep(value: unknown, limit: number): (string | number)[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (limit === 0) return [];
  for (const [key, child] of Object.entries(value)) {
    const below = pathTooDeep(child, limit - 1);
    if (below) return [Array.isArray(value) ? Number(key) : key, ...below];
  }
  return undefined;
}

/** Some JSON bodies nest, others do not: a quick count of openers skips the walk for the flat ones. */
function mayNestDeeperThan(json: string, limit: number): boolean {
  let openers = 0;
  for (let at = json.indexOf("{"); at >= 0 && openers <= limit; at = json.indexOf("{", at + 1)) openers++;
  for (let at = json.indexOf("["); at >= 0 && openers <= limit; at = json.indexOf("[", at + 1)) openers++;
  return openers > limit;
}

/** Why a parsed body is refused, or undefined when it is fine. */
function refusal(json: string, value: unknown): Error | undefined {
  if (mayNestDeeperThan(json, MAX_JSON_DEPTH)) {
    const where = pathTooDeep(value, MAX_JSON_DEPTH);
    if (where) return invalid(["body", ...where.slice(0, 3)], `JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (ESCAPED_NUL.test(json)) {
    const where = pathTo(value, (text) => text.includes("\u0000"));
    if (where) return invalid(["body", ...where], "Must not contain NUL characters");
  }
  if (ESCAPED_SURROGATE.test(json)) {
    const where = pathTo(value, (text) => LONE_SURROGATE.test(text));
    if (where) return invalid(["body", ...where], "Must not contain lone UTF-16 surrogates (not valid Unicode)");
  }
  return undefined;
}

export function jsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const json = body.toString();
    if (json === "") return done(null, undefined);
    parseJson(request, json, (error, value) => {
      if (error) return done(error, undefined);
      const refused = refusal(json, value);
      if (refused) return done(refused, undefined);
      done(null, value);
    });
  });
  // The same for query values (a NUL in a path id simply names nothing: services answer 404 for malformed ids).
  // A callback hook: no promise per request on the hot path.
  app.addHook("onRequest", (request, _reply, done) => {
    const query = request.url.indexOf("?");
    if (query >= 0 && request.url.includes("%00", query))
      return done(invalid(["query"], "Must not contain NUL characters"));
    done();
  });
}
