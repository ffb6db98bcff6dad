// An assignment's skills, written where the agent CLI looks for them: `.claude/skills/<name>/` for Claude Code (it
// finds them itself), `skills/<name>/` for the others with a "Skills" section for their AGENTS.md. Files are fetched
// with the task token once per sha256 and kept in the runner's folder; a file whose bytes do not match its sha256 is
// refused, so a cached file is always the one named.
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { AssignedSkill } from "./protocol.ts";
import type { RuntimeKind } from "./runtimes.ts";
import { excludeFromGit } from "./workdir.ts";

const FETCH_TIMEOUT_MS = 30_000;

export interface SkillsInstall {
  skills: AssignedSkill[];
  kind: RuntimeKind;
  workDir: string;
  /** The runner's cache of skill files, one file per sha256. */
  cacheDir: string;
  taskToken: string;
  env: Record<string, string>;
}

/** Writes the skills into the working directory; returns what the brief should add (empty when nothing). */
export async function installSkills(install: SkillsInstall): Promise<string> {
  const { skills, kind, workDir } = install;
  if (skills.length === 0) return "";
  const folder = kind === "claude" ? join(".claude", "skills") : "skills";
  const checkout = existsSync(join(workDir, ".git"));
  for (const skill of skills) {
    const skillDir = resolve(workDir, folder, skill.name);
    await rm(skillDir, { recursive: true, force: true });
    for (const file of skill.files) {
      const target = resolve(skillDir, ...file.path.split("/"));
      if (!target.startsWith(skillDir + sep)) throw new Error(`Skill ${skill.name}: ${file.path} leaves its folder`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, await cachedFile(install, skill.name, file));
    }
    if (checkout) await excludeFromGit(workDir, `/${folder}/${skill.name}/`, install.env);
  }
  if (kind === "claude") return "";
  const list = skills.map((skill) => `- ${skill.name}: ${skill.description} (\`skills/${skill.name}/SKILL.md\`)`);
  return [
    "## Skills",
    "These skills are in this folder. When the task calls for one, read its SKILL.md first, then the files it names.",
    ...list,
  ].join("\n");
}

async function cachedFile(
  install: SkillsInstall,
  skillName: string,
  file: AssignedSkill["files"][number],
): Promise<Buffer> {
  const cached = join(install.cacheDir, file.sha256);
  if (existsSync(cached)) return readFile(cached);
  const response = await fetch(file.url, {
    headers: { authorization: `Bearer ${install.taskToken}` },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`Could not fetch ${file.path} of skill ${skillName}: HTTP ${response.status}`);
  const content = Buffer.from(await response.arrayBuffer());
  if (createHash("sha256").update(content).digest("hex") !== file.sha256) {
    throw new Error(`${file.path} of skill ${skillName} does not match its sha256`);
  }
  // Written whole under another name first: a runner stopped mid-write leaves no half file under the sha256.
  const partial = `${cached}.${randomUUID()}.partial`;
  await writeFile(partial, content);
  await rename(partial, cached);
  return content;
}
