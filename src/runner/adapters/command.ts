// A `command` runtime (`--runtime name=command`): any program. It gets the brief on stdin and the task's
// AGENT_PLATFORM_* variables; its stdout is the answer, except that a line holding a JSON object with an AG-UI
// `type` (text, tool call, reasoning or CUSTOM events) is passed on as that event.
import { open } from "node:fs/promises";
import { delimiter, isAbsolute, resolve } from "node:path";
import { EventSchema } from "@ag-ui/core/schemas";
import type { OfficialEvent, RunEventWriter } from "../agui.ts";
import { findOnPath } from "../detect.ts";
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

/**
 * A command line /bin/sh would only split at blanks: a program (a path, or a name the shell looks up on PATH) and
 * words of letters, digits and `_ @ % + , . / : = -` (no quotes, variables, globs, redirections, `~`, `#`, no line
 * breaks).
 */
const PLAIN_COMMAND = /^[ \t]*[\w@%+,./:-]+([ \t]+[\w@%+,./:=-]+)*[ \t]*$/;

/** Names /bin/sh (dash, bash) runs itself rather than looking them up on PATH. */
const SHELL_OWN_WORDS = new Set(
  (
    "! { } case do done elif else esac fi for if in then until while . : [ alias bg break builtin cd command " +
    "continue declare echo eval exec exit export false fc fg getopts hash jobs kill let local printf pwd read " +
    "readonly return set shift source test times trap true type typeset ulimit umask unalias unset wait"
  ).split(" "),
);

/** The program a plain command line names, when the kernel can run it without a shell; undefined otherwise. */
async function directProgram(program: string, workDir: string, path: string | undefined): Promise<string | undefined> {
  if (program.includes("/")) {
    const file = resolve(workDir, program);
    return (await runsDirectly(file)) ? file : undefined;
  }
  if (SHELL_OWN_WORDS.has(program) || path === undefined) return undefined;
  // A PATH with the current folder (an empty entry) or a relative folder in it is the shell's to interpret.
  if (path.split(delimiter).some((dir) => !isAbsolute(dir))) return undefined;
  const file = findOnPath(program, path);
  return file !== undefined && (await runsDirectly(file)) ? file : undefined;
}

/** Whether `path` starts as an interpreter script (`#!`) or an ELF executable does; false when it cannot be read. */
async function runsDirectly(path: string): Promise<boolean> {
  try {
    const file = await open(path, "r");
    try {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(4), 0, 4, 0);
      const start = buffer.subarray(0, bytesRead);
      return start.subarray(0, 2).toString("latin1") === "#!" || start.toString("latin1") === "\x7fELF";
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
}

export const commandAdapter: Adapter = {
  resumes: false,
  briefFiles: ["AGENTS.md"],

  async launch(input: LaunchInput): Promise<Launch> {
    // No shell to start for a command line that means the same split at its blanks, naming a program the kernel
    // runs itself (a script without `#!` is run by the shell, as before). Each shell is one more process per task.
    if (PLAIN_COMMAND.test(input.command)) {
      const [program, ...args] = input.command.trim().split(/[ \t]+/);
      const file = await directProgram(program!, input.workDir, input.path);
      if (file !== undefined) return { file, args, env: {}, shell: false, argv0: program! };
    }
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
