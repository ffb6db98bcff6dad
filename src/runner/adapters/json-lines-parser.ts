// What every JSON-lines CLI parser keeps: the session the CLI named, its answer, its usage and the error it reported.
import type { RunEventWriter } from "../agui.ts";
import { type CliOutcome, jsonObject, type OutputParser, type Usage } from "./types.ts";

export abstract class JsonLinesParser implements OutputParser {
  sessionId: string | undefined;
  protected answer = "";
  protected usage: Usage | undefined;
  protected error: string | undefined;

  constructor(protected readonly events: RunEventWriter) {}

  line(line: string): void {
    const event = jsonObject(line);
    if (event !== undefined) this.read(event);
  }

  /** One JSON object the CLI printed (banners and partial lines never reach here). */
  protected abstract read(event: Record<string, unknown>): void;

  /** The answer once the output has ended. */
  protected finalAnswer(): string {
    return this.answer;
  }

  finish(): CliOutcome {
    this.events.endText();
    const outcome: CliOutcome = { sessionId: this.sessionId, answer: this.finalAnswer() };
    if (this.usage !== undefined) outcome.usage = this.usage;
    if (this.error !== undefined) outcome.error = this.error;
    return outcome;
  }
}
