// Typed HTTP errors and the one handler that turns every error into the documented JSON:
// `{"detail": "<message>"}`, or for validation `{"detail": [{type, loc, msg}]}` with status 422.
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { databaseRefusal } from "../db/index.ts";
import { logRequest } from "./request-log.ts";

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "HttpError";
  }
}

export const unauthorized = (detail: string) => new HttpError(401, detail);
export const forbidden = (detail = "Not a member of this workspace or insufficient role") => new HttpError(403, detail);
export const notFound = (thing: string) => new HttpError(404, `${thing} not found`);
export const conflict = (detail: string) => new HttpError(409, detail);

interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
}

/** A 422 raised by a service for a rule the schema cannot express (e.g. an issue depending on itself). */
export class ValidationError extends HttpError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, issues[0]?.msg ?? "Validation error");
  }
}

export const invalid = (loc: (string | number)[], msg: string, type = "value_error") =>
  new ValidationError([{ type, loc, msg }]);

/** One schema complaint as a 422 item; an absent required field reads "missing" / "Field required". */
export function validationIssue(code: string, loc: (string | number)[], message: string | undefined): ValidationIssue {
  const missing = code === "invalid_type" && /received undefined$/.test(message ?? "");
  return { type: missing ? "missing" : code, loc, msg: missing ? "Field required" : (message ?? "Invalid value") };
}

/**
 * A database refusal that got past the services' own checks, as the documented 4xx: the one place raw database
 * messages (`datatype mismatch`, `out of range for type bigint`, constraint names) are kept from callers.
 */
export function fromDatabaseError(error: unknown): HttpError | undefined {
  switch (databaseRefusal(error)) {
    case "unique":
      return conflict("Already exists");
    case "missing_reference":
      return new HttpError(404, "A referenced resource was not found");
    case "bad_value":
      return invalid(["body"], "A value is out of range or of the wrong type");
    default:
      return undefined;
  }
}

const LOCATION: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = LOCATION[error.validationContext ?? "body"] ?? "body";
      const detail = error.validation.map((issue) =>
        validationIssue(issue.keyword, [where, ...issue.instancePath.split("/").filter(Boolean)], issue.message),
      );
      return reply.code(422).send({ detail });
    }
    const known = fromDatabaseError(error) ?? error;
    if (known !== error) request.log.warn({ err: error }, "database refused the request");
    if (known instanceof ValidationError) return reply.code(422).send({ detail: known.issues });
    if (known instanceof HttpError) return reply.code(known.statusCode).send({ detail: known.detail });
    switch (error.code) {
      case "FST_ERR_CTP_INVALID_JSON_BODY":
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
        return reply.code(422).send({
          detail: [{ type: "json_invalid", loc: ["body"], msg: "Request body is not valid JSON" }],
        });
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply.code(413).send({ detail: "Request body too large (limit 1 MiB)" });
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return reply.code(415).send({ detail: "Unsupported media type: send application/json" });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ detail: error.message });
    }
    request.log.error({ err: error }, "request failed");
    return reply.code(500).send({ detail: "Internal server error" });
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: "Not Found" }));
}

/**
 * Errors Fastify answers before any route runs (a path that is not valid percent-encoding), in the same shape. An id
 * longer than the router's parameter limit never gets here: the limit is set above any URL Node accepts.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_BAD_URL") {
    reply.code(400).send({ detail: "Malformed URL: the path is not valid percent-encoding" });
  } else {
    const statusCode = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    reply.code(statusCode).send({ detail: statusCode < 500 ? error.message : "Internal server error" });
  }
  logRequest(request, reply); // no route, so no onResponse hook
}

/**
 * Requests Node refuses while reading them (headers too large, a malformed request line, a request that takes too
 * long), answered on the raw socket, still as `{"detail": …}`.
 */
export function clientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [statusCode, detail] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request headers (URL included) too large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request timed out"]
        : [400, "Malformed HTTP request"];
  this.log.info({ statusCode, code: error.code }, "request refused before it was read");
  if (socket.writable) {
    const body = JSON.stringify({ detail });
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
