import type { RuntimeKind } from "../runtimes.ts";
import { claudeAdapter } from "./claude.ts";
import { codexAdapter } from "./codex.ts";
import { commandAdapter } from "./command.ts";
import { geminiAdapter } from "./gemini.ts";
import { opencodeAdapter } from "./opencode.ts";
import type { Adapter } from "./types.ts";

export const ADAPTERS: Record<RuntimeKind, Adapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  opencode: opencodeAdapter,
  gemini: geminiAdapter,
  command: commandAdapter,
};
