// How a refused tool-protocol caller learns why. Remote MCP clients (the SDK's transports, mcp-remote) answer a 401
// by trying OAuth: they read `WWW-Authenticate`, then, finding no OAuth metadata here, register a client at the
// origin's `/register` (the MCP authorization spec's default endpoint). That registration is refused with the
// reason the credential was refused, so the client reports it instead of a later, unrelated error (mcp-remote used
// to fall back to GET /mcp and end with "405").
import type { FastifyInstance } from "fastify";
import type { Authenticator } from "../auth/authenticator.ts";
import { HttpError } from "../http/errors.ts";
import { MISSING_CREDENTIAL } from "./caller.ts";

const REALM = 'Bearer realm="agent-platform"';
const REGISTRATION_PATH = "/register";
const NO_OAUTH =
  "agent-platform has no OAuth sign-in: send a workspace API key (X-API-Key: ap_… or Authorization: Bearer ap_…)";

/**
 * RFC 6750 §3: a refused credential is `error="invalid_token"` with the reason; a missing one gets the bare
 * challenge (no error code), and its body says what to send.
 */
function bearerChallenge(detail: string): string {
  if (detail === MISSING_CREDENTIAL) return REALM;
  return `${REALM}, error="invalid_token", error_description="${quotable(detail)}"`;
}

/** error_description allows printable ASCII except `"` and `\`. */
const quotable = (text: string): string => text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "?");

/** Every 401 of `scope` carries the challenge. */
export function challengeRefusedCallers(scope: FastifyInstance): void {
  scope.addHook("onError", async (_request, reply, error) => {
    if (error instanceof HttpError && error.statusCode === 401)
      reply.header("www-authenticate", bearerChallenge(error.detail));
  });
}

/**
 * `POST /register` (OAuth dynamic client registration) is refused with an RFC 7591 error naming what is wrong with
 * the credential the client sent along.
 */
export function refuseClientRegistration(scope: FastifyInstance, authenticator: Authenticator): void {
  scope.post(REGISTRATION_PATH, { schema: { hide: true } }, async (request, reply) => {
    let problem: string;
    try {
      const principal = await authenticator.authenticate(request.headers);
      problem = principal ? "the credential sent is valid" : "no credential was sent";
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      problem = `the credential sent was refused: ${error.detail}`;
    }
    return reply.code(400).send({ error: "invalid_client_metadata", error_description: `${NO_OAUTH}; ${problem}` });
  });
}
