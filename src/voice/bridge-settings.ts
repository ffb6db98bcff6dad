// What every call of one call server shares: the provider to reach, the tools offered, the database, the stream
// tokens, the carrier's REST API and the call control settings.
import type { FastifyBaseLogger } from "fastify";
import type { TransferTarget } from "../config.ts";
import type { Db } from "../db/index.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool } from "../tools/registry.ts";
import type { CarrierRest } from "./carrier-rest.ts";
import type { PhoneAgent } from "./phone-agent.ts";
import type { RealtimeApiVersion, RealtimeToolDefinition } from "./session-config.ts";
import type { StreamTokens } from "./stream-token.ts";
import type { WhisperLinks } from "./transfer.ts";

export interface BridgeSettings {
  providerUrl: string;
  apiKey: string;
  apiVersion: "auto" | RealtimeApiVersion;
  /** The built-in functions offered (end_call, transfer_call), first in the session configuration. */
  builtInDefinitions: RealtimeToolDefinition[];
  /** The tools file's tools (or the registry handed to startCallServer), offered on every call. */
  customTools: Tool[];
  tools: ToolInvoker;
  /** CALL_AGENT_ID: the platform agent that takes the calls (its instructions, tools and skills). */
  phoneAgent?: PhoneAgent | undefined;
  db: Db;
  /** The workspace the calls are recorded under (CALL_WORKSPACE_ID); unset, under none. */
  workspaceId?: string | undefined;
  tokens: StreamTokens;
  /** The carrier's REST API (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN set); unset, hanging up closes the stream. */
  carrier?: CarrierRest | undefined;
  /** Where transfer_call may send the caller (CALL_TRANSFER_TO). */
  transferTargets?: TransferTarget[];
  whisperLinks?: WhisperLinks;
  /** Set (CALL_RECORDING): each call is recorded as `<call id>.wav` in this directory. */
  recordingsDir?: string | undefined;
  /** This server's https origin as the carrier reaches it (for the links it hands the carrier). */
  origin?: string | undefined;
  log: FastifyBaseLogger;
  /** How long a connected carrier may take to send `start` (default 10 s). */
  startTimeoutMs?: number;
  /** How long to wait for the provider's `session.created` when the API version is detected from it (default 10 s). */
  sessionCreatedTimeoutMs?: number;
}
