// What a feature adds to every run of a platform agent (task runs, /agui, ask_<agent> alike): words for the system
// prompt and tools. The runtime asks each addition at the start of a run; server wiring (core.ts) hands them in, so
// the runtime knows no feature.

import type { Agent } from "../platform/agents/service.ts";
import type { Tool } from "../tools/registry.ts";

export interface RunAdditions {
  /** Said to the model after the agent's instructions. */
  instructions?: string;
  tools?: Tool[];
}

export interface RunAddition {
  forAgent(agent: Agent): Promise<RunAdditions>;
}
