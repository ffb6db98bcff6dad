// The fetch an agent's MCP client uses for its HTTP servers: every request first has its URL checked
// (src/http/targets.ts: https, and no private, loopback or link-local address unless AGENT_MCP_ALLOW_PRIVATE) and then
// connects to the very address checked. So a server URL, a redirect the SDK follows or a name that re-resolves cannot
// reach the host's own network. Redirects are never followed here (the SDK decides, and its next request is checked
// again).
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { checkTarget, pinnedLookup, type TargetPolicy } from "../http/targets.ts";

/** Statuses whose Response may carry no body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function checkedFetch(policy: TargetPolicy): FetchLike {
  return async (input, init = {}) => {
    const target = await checkTarget(String(input), policy);
    if (!target.ok) throw new Error(target.problem);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = await bodyText(init.body);
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const isHttps = target.url.protocol === "https:";
    return new Promise<Response>((resolve, reject) => {
      const request = (isHttps ? https : http).request(
        target.url,
        {
          method: init.method ?? "GET",
          headers,
          lookup: pinnedLookup(target.address),
          signal: init.signal ?? undefined,
        },
        (response) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of [value ?? []].flat()) responseHeaders.append(name, one);
          }
          const status = response.statusCode ?? 502;
          const stream = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(response) as ReadableStream);
          if (!stream) response.resume();
          resolve(new Response(stream, { status, statusText: response.statusMessage ?? "", headers: responseHeaders }));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  };
}

/** The SDK sends JSON text; anything else a fetch body may be is read as text too. */
async function bodyText(body: RequestInit["body"]): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  return new Response(body).text();
}
