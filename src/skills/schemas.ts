import { z } from "zod";
import { text } from "../api/fields.ts";
import { MAX_PATH_LENGTH, MAX_SKILL_FILES } from "./limits.ts";

export const skillFileSchema = z
  .object({ path: z.string(), size: z.number().int(), sha256: z.string() })
  .meta({ id: "SkillFile" });

export const skillSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    description: z.string(),
    files: z.array(skillFileSchema),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Skill" });
export type Skill = z.infer<typeof skillSchema>;

const fileInput = z.object({
  path: text(MAX_PATH_LENGTH).meta({ description: "Relative to the skill folder, e.g. SKILL.md or scripts/run.py" }),
  // Any text the JSON parser accepts; its size is held to the API's 1 MiB body limit.
  content: z.string(),
  encoding: z.enum(["utf8", "base64"]).default("utf8"),
});

export const skillFilesBody = z.object({ files: z.array(fileInput).min(1).max(MAX_SKILL_FILES) }).meta({
  description:
    "The skill folder: SKILL.md (YAML front matter with name and description) and the files beside it. " +
    "Or send the folder as a zip with Content-Type: application/zip (up to 5 MiB).",
});
export type SkillFilesInput = z.infer<typeof skillFilesBody>;

export const skillParams = z.object({ ws_id: z.string(), skill_id: z.string() });
export const skillFileParams = skillParams.extend({ "*": z.string() });
