// The call server's Fastify app: status page, carrier webhook and the media-stream WebSocket.
import fastifyWebsocket from "@fastify/websocket";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import { HttpError } from "../http/errors.ts";
import { CallMetrics, METRICS_CONTENT_TYPE } from "../ops/metrics.ts";
import { checkMetricsCaller } from "../ops/routes.ts";
import type { BridgeSettings } from "./bridge-settings.ts";
import { CallBridge } from "./call-bridge.ts";
import { outboundRoutes, outboundTokenSubject } from "./outbound.ts";
import { boundParameters, CALLER_PARAMETER, OUTBOUND_CALL_PARAMETER, STREAM_TOKEN_PARAMETER } from "./stream-token.ts";
import { WHISPER_PATH, type WhisperLinks, whisperTwiml } from "./transfer.ts";
import { type FormParams, verifyTwilioSignature } from "./twilio-signature.ts";
import { parseForm, statusPage, VALID_HOST, webhookDocument } from "./webhook.ts";

interface CallAppOptions {
  bridge: Omit<BridgeSettings, "log">;
  /** When set, webhook requests must carry a valid X-Twilio-Signature. */
  twilioAuthToken: string | undefined;
  /** Signs and reads the whisper links of warm hand-offs (transfer_call with a summary). */
  whisperLinks: WhisperLinks;
  /** The public origin (tunnel or PUBLIC_URL), read per request because the tunnel opens after listen. */
  publicOrigin: () => string | undefined;
  logger: FastifyServerOptions["logger"];
  /** Bearer token for /metrics; without one, only direct loopback callers may read it. */
  metricsToken?: string | undefined;
  /** Outbound calls (POST /calls): who may place them, and from which number, how many a minute. */
  outbound: Pick<OutboundSettings, "authenticator" | "fromNumber" | "maxPerMinute">;
}

type OutboundSettings = Parameters<typeof outboundRoutes>[1];

const firstValue = (header: string | string[] | undefined): string | undefined =>
  (Array.isArray(header) ? header[0] : header)?.split(",")[0]?.trim() || undefined;

export async function buildCallApp(options: CallAppOptions): Promise<FastifyInstance> {
  // Per-request lines add nothing: each call logs its own start, end and faults.
  const app = Fastify({ logger: options.logger, logController: new LogController({ disableRequestLogging: true }) });
  const bridges = new Set<CallBridge>();

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) =>
    done(null, parseForm(String(body))),
  );
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 1024 * 1024 },
    // Calls still running when the server closes are hung up and their records finished before the database closes.
    preClose: async () => {
      for (const bridge of bridges) bridge.end("the call server is shutting down", 1001);
      await Promise.all([...bridges].map((bridge) => bridge.finished));
    },
  });

  app.get("/status", async (_request, reply) => reply.type("text/html; charset=utf-8").send(statusPage));
  const metrics = new CallMetrics(() => bridges.size);
  app.get("/metrics", async (request, reply) => {
    try {
      checkMetricsCaller(request, options.metricsToken);
    } catch (error) {
      if (error instanceof HttpError) return reply.code(error.statusCode).send({ detail: error.detail });
      throw error;
    }
    return reply.type(METRICS_CONTENT_TYPE).send(await metrics.render());
  });

  const webhook = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = originOf(request, options.publicOrigin());
    if (!origin) return reply.code(400).type("text/plain").send("Bad Host header");
    const form: FormParams = request.method === "POST" && isForm(request.body) ? request.body : {};
    if (options.twilioAuthToken) {
      const signature = firstValue(request.headers["x-twilio-signature"]);
      if (!verifyTwilioSignature(options.twilioAuthToken, origin.href + request.url.slice(1), form, signature)) {
        request.log.warn("webhook refused: missing or invalid X-Twilio-Signature");
        return reply.code(403).type("text/plain").send("Invalid X-Twilio-Signature");
      }
    }
    const query = new URLSearchParams(request.url.split("?")[1] ?? "");
    const callSid = form.CallSid?.[0] ?? query.get("CallSid") ?? "";
    const carried: Record<string, string> = {};
    // An outbound call's webhook URL names the call and carries a one-time token.
    const outboundCall = query.get("call");
    if (outboundCall !== null) {
      const token = query.get("token") ?? undefined;
      if (!(await options.bridge.tokens.use(token, outboundTokenSubject(outboundCall)))) {
        request.log.warn("webhook refused: missing, invalid or already used outbound call token");
        return reply.code(403).type("text/plain").send("Invalid or used outbound call token");
      }
      carried[OUTBOUND_CALL_PARAMETER] = outboundCall;
    }
    // A phone agent is told who is on the line (and files "Call from <number>"): the number rides along.
    const other = outboundCall === null ? (form.From?.[0] ?? query.get("From")) : (form.To?.[0] ?? query.get("To"));
    if (options.bridge.phoneAgent && other) carried[CALLER_PARAMETER] = other;
    const parameters: Record<string, string> = {
      [STREAM_TOKEN_PARAMETER]: options.bridge.tokens.issue(callSid, Date.now(), boundParameters(carried)),
      ...carried,
    };
    return reply.type("application/xml; charset=utf-8").send(webhookDocument(origin.host, parameters));
  };
  app.get("/", webhook);
  app.post("/", webhook);

  // The target's leg of a warm hand-off fetches what it hears before the caller is joined.
  const whisper = async (request: FastifyRequest, reply: FastifyReply) => {
    const summary = options.whisperLinks.summaryOf(new URLSearchParams(request.url.split("?")[1] ?? ""));
    if (summary === undefined) return reply.code(403).type("text/plain").send("Invalid or missing whisper link");
    return reply.type("application/xml; charset=utf-8").send(whisperTwiml(summary));
  };
  app.get(WHISPER_PATH, whisper);
  app.post(WHISPER_PATH, whisper);

  await app.register(outboundRoutes, {
    ...options.outbound,
    db: options.bridge.db,
    tokens: options.bridge.tokens,
    workspaceId: options.bridge.workspaceId,
    carrier: options.bridge.carrier,
    twilioAuthToken: options.twilioAuthToken,
    originOf: (request) => originOf(request, options.publicOrigin()),
    liveCall: (callId) => [...bridges].find((bridge) => bridge.callId === callId),
  });

  app.get("/media-stream", { websocket: true }, (socket, request) => {
    // The carrier reached the stream at wss://HOST (the webhook said so): links it is handed are https on that host.
    const host = originOf(request, options.publicOrigin())?.host;
    const origin = host === undefined ? undefined : `https://${host}`;
    const bridge = new CallBridge(socket, {
      ...options.bridge,
      whisperLinks: options.whisperLinks,
      origin,
      log: request.log,
    });
    bridges.add(bridge);
    void bridge.finished.then(() => bridges.delete(bridge));
  });

  return app;
}

function isForm(body: unknown): body is FormParams {
  return typeof body === "object" && body !== null && !Array.isArray(body);
}

/** Where the carrier reached us: the public origin when there is one, else the forwarded or direct Host. */
function originOf(request: FastifyRequest, publicOrigin: string | undefined): URL | undefined {
  if (publicOrigin) return new URL("/", publicOrigin);
  const host = firstValue(request.headers["x-forwarded-host"]) ?? request.headers.host;
  if (!host || !VALID_HOST.test(host)) return undefined;
  const proto = firstValue(request.headers["x-forwarded-proto"]) === "https" ? "https" : "http";
  return new URL(`${proto}://${host}/`);
}
