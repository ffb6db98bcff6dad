// A skill folder checked as a whole before anything is stored: its paths, its size, and SKILL.md's front matter.
import { createHash } from "node:crypto";
import { invalid } from "../http/errors.ts";
import { readFrontMatter } from "./front-matter.ts";
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD } from "./limits.ts";
import { pathProblem } from "./paths.ts";

export interface FolderFile {
  path: string;
  content: Buffer;
}

export interface StoredFile extends FolderFile {
  size: number;
  sha256: string;
}

export interface SkillFolder {
  name: string;
  description: string;
  files: StoredFile[];
}

/** Where a file sits in the request, for the 422 (`["body", "files", 3, "path"]`, or the zip entry's name). */
export type Locate = (index: number) => (string | number)[];

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of `content` if it is UTF-8, else undefined. */
export function utf8Text(content: Buffer): string | undefined {
  try {
    return utf8.decode(content);
  } catch {
    return undefined;
  }
}

/** Checks every rule of a skill folder; 422 naming the first file or field that breaks one. */
export function checkFolder(files: FolderFile[], locate: Locate): SkillFolder {
  if (files.length > MAX_SKILL_FILES) {
    throw invalid(["body"], `A skill holds at most ${MAX_SKILL_FILES} files; this has ${files.length}`);
  }
  const seen = new Set<string>();
  let total = 0;
  for (const [index, file] of files.entries()) {
    const problem = pathProblem(file.path);
    if (problem) throw invalid(locate(index), `Path "${file.path}" ${problem}`);
    if (seen.has(file.path)) throw invalid(locate(index), `Path "${file.path}" appears twice`);
    seen.add(file.path);
    total += file.content.length;
  }
  if (total > MAX_SKILL_BYTES) throw invalid(["body"], `A skill holds at most 5 MiB of files; this has ${total} bytes`);
  const skillMdIndex = files.findIndex((file) => file.path === SKILL_MD);
  const skillMd = files[skillMdIndex];
  if (!skillMd) throw invalid(["body"], `${SKILL_MD} is missing: a skill needs ${SKILL_MD} at the top of its folder`);
  const text = utf8Text(skillMd.content);
  if (text === undefined) throw invalid(locate(skillMdIndex), `${SKILL_MD} must be UTF-8 text`);
  const front = readFrontMatter(text);
  if ("problem" in front) throw invalid(locate(skillMdIndex), front.problem);
  const stored = files
    .map((file) => ({
      ...file,
      size: file.content.length,
      sha256: createHash("sha256").update(file.content).digest("hex"),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { name: front.name, description: front.description, files: stored };
}
