// A `command` runtime (`--runtime name=command`): any program. It gets the brief on stdin and the task's
// AGENT_PLATFORM_* variables; its stdout is the answer, except that a line holding a JSON object with an AG-UI
// `type` (text, tool call, reasoning or CUSTOM events) is passed on as that event.
import { EventSchema } from "@ag-ui/core/schemas";
import type { OfficialEvent, RunEventWriter } from "../agui.ts";
import {
  type Adapter,
  type CliOutcome,
  jsonObject,
  type Launch,
  type LaunchInput,
  type OutputParser,
} from "./types.ts";

/** The events a run's stream takes from a runner; the run's start and end are the server's to tell. */
const PASSED_ON = /^(TEXT_MESSAGE_(START|CONTENT|END)|TOOL_CALL_(START|ARGS|END|RESULT)|REASONING_\w+|CUSTOM)$/;

export const commandAdapter: Adapter = {
  resumes: false,
  briefFiles: ["AGENTS.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    return { file: input.command, args: [], env: {}, shell: true };
  },

  parser(events: RunEventWriter): OutputParser {
    return new CommandOutputParser(events);
  },
};

class CommandOutputParser implements OutputParser {
  readonly sessionId = undefined;
  private answer = "";

  constructor(private readonly events: RunEventWriter) {}

  line(line: string): void {
    const event = aguiEvent(line);
    if (event !== undefined) {
      this.events.raw(event);
      return;
    }
    this.events.text(`${line}\n`);
    this.answer += `${line}\n`;
  }

  finish(): CliOutcome {
    this.events.endText();
    return { answer: this.answer.trimEnd() };
  }
}

function aguiEvent(line: string): OfficialEvent | undefined {
  const object = jsonObject(line);
  if (object === undefined || typeof object.type !== "string" || !PASSED_ON.test(object.type)) return undefined;
  return EventSchema.safeParse(object).success ? (object as OfficialEvent) : undefined;
}
