// Python HTTP clients (httpx, which PraisonAI's PlatformClient uses) send `Content-Type: application/json` on every
// request, and `Content-Length: 0` on a POST without a body (e.g. linking a label). Fastify's own parser calls that
// an empty-JSON error; FastAPI treats it as no body. Here an empty body is no body: a route that needs one still
// answers 422 "Field required"; anything else that is not JSON stays a 422 `json_invalid`.
import type { FastifyInstance } from "fastify";

export function acceptEmptyJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const json = body.toString();
    if (json === "") return done(null, undefined);
    parseJson(request, json, done);
  });
}
