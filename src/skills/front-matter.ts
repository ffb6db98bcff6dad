// SKILL.md's YAML front matter (Agent Skills format): `name` and `description` between `---` lines at the top.
import { parse } from "yaml";
import { SKILL_MD } from "./limits.ts";

export const SKILL_NAME = /^[a-z0-9-]{1,64}$/;
export const MAX_DESCRIPTION = 1024;

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** `{name, description}` from SKILL.md's text, or why not (a sentence naming SKILL.md). */
export function readFrontMatter(text: string): { name: string; description: string } | { problem: string } {
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  if (!match) return { problem: `${SKILL_MD} must start with YAML front matter between --- lines` };
  let fields: unknown;
  try {
    fields = parse(match[1] ?? "", { maxAliasCount: 10 });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "unreadable";
    return { problem: `${SKILL_MD} front matter is not valid YAML: ${reason}` };
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    return { problem: `${SKILL_MD} front matter must be a YAML mapping with name and description` };
  }
  const { name, description } = fields as Record<string, unknown>;
  if (typeof name !== "string" || !SKILL_NAME.test(name)) {
    return {
      problem: `${SKILL_MD} front matter needs name: lower-case letters, digits and -, at most 64 characters`,
    };
  }
  if (
    typeof description !== "string" ||
    description.trim() === "" ||
    description.length > MAX_DESCRIPTION ||
    description.includes("\u0000")
  ) {
    return { problem: `${SKILL_MD} front matter needs description: text of at most ${MAX_DESCRIPTION} characters` };
  }
  return { name, description: description.trim() };
}
