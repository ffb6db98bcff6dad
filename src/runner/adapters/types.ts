// One adapter per agent CLI: how to start it headless for a task, and how to read what it prints.
import type { RunEventWriter } from "../agui.ts";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

/** What a task gives the CLI it starts. */
export interface LaunchInput {
  /** The executable (or, for a `command` runtime, the shell command). */
  command: string;
  workDir: string;
  /** A private folder (0700) for files that hold the task token; removed when the task ends. */
  secretsDir: string;
  /** The PATH the CLI gets (where a `command` runtime's program is looked up). */
  path?: string;
  /** The task brief, written to the CLI's stdin. */
  prompt: string;
  mcpUrl: string;
  /** The task token: the CLI's only credential to the platform. */
  taskToken: string;
  /** The session of an earlier attempt to continue, when the runtime can. */
  resumeSessionId?: string;
}

export interface Launch {
  file: string;
  args: string[];
  /** Added to the scrubbed environment the CLI gets. */
  env: Record<string, string>;
  /** Run `file` through /bin/sh (a `command` runtime's command line). */
  shell?: boolean;
  /** The program's name as the command line wrote it (`file` being where PATH found it). */
  argv0?: string;
}

/** What the CLI's output said once it has ended. */
export interface CliOutcome {
  sessionId?: string;
  answer: string;
  usage?: Usage;
  /** The CLI reported a failed turn (an API error, a turn limit...). */
  error?: string;
}

/** Reads one CLI's stdout, line by line, writing AG-UI events as it goes. */
export interface OutputParser {
  line(line: string): void;
  /** The session id as soon as the CLI has named it. */
  readonly sessionId: string | undefined;
  /** Called once after the last line: closes what is open and says how the run ended. */
  finish(): CliOutcome;
}

export interface Adapter {
  /** Whether `resumeSessionId` is honoured (a `command` runtime has no session). */
  readonly resumes: boolean;
  /** The brief file names the CLI reads from its working directory. */
  readonly briefFiles: readonly string[];
  launch(input: LaunchInput): Promise<Launch>;
  parser(events: RunEventWriter): OutputParser;
}

/** A stdout line as a JSON object, or undefined for anything else (banners, partial writes). */
export function jsonObject(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asNumber(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Tool output as text: MCP content blocks and the like become their text, anything else its JSON. */
export function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const texts = value.map((block) => asString(asRecord(block).text));
    if (texts.every((text) => text !== undefined)) return texts.join("\n");
  }
  return value === undefined || value === null ? "" : JSON.stringify(value);
}
