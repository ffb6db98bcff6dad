// Skills in an agent's in-process runs, as Agent Skills intend (progressive disclosure): the system prompt lists each
// skill's name and description, and `read_skill` reads its SKILL.md, or one file of it, when the model wants it.
import { z } from "zod";
import type { RunAddition, RunAdditions } from "../agents/run-additions.ts";
import { text } from "../api/fields.ts";
import type { Db } from "../db/index.ts";
import type { Agent } from "../platform/agents/service.ts";
import type { Tool } from "../tools/registry.ts";
import { utf8Text } from "./folder.ts";
import { SKILL_MD } from "./limits.ts";

interface CarriedSkill {
  id: string;
  name: string;
  description: string;
}

/** The agent's skills, in the order its `skills` list gives. */
export function skillsOfAgent(db: Db, agentId: string): Promise<CarriedSkill[]> {
  return db
    .selectFrom("agent_skills")
    .innerJoin("skills", "skills.id", "agent_skills.skill_id")
    .select(["skills.id", "skills.name", "skills.description"])
    .where("agent_skills.agent_id", "=", agentId)
    .orderBy("agent_skills.position")
    .execute();
}

export function skillsInRuns(db: Db): RunAddition {
  return {
    async forAgent(agent: Agent): Promise<RunAdditions> {
      const skills = await skillsOfAgent(db, agent.id);
      if (skills.length === 0) return {};
      return { instructions: skillsPrompt(skills), tools: [readSkillTool(db, agent.id)] };
    },
  };
}

function skillsPrompt(skills: CarriedSkill[]): string {
  const list = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n");
  return (
    "## Skills\n" +
    "You have these skills. When a task calls for one, read its instructions first with the read_skill tool " +
    `(\`{"name": "<skill>"}\` returns its ${SKILL_MD}), then any file they point to (\`{"name", "path"}\`).\n${list}`
  );
}

const readSkillInput = z.object({
  name: text(64).min(1).meta({ description: "The skill's name, as listed in your instructions" }),
  path: text(500)
    .min(1)
    .optional()
    .meta({ description: `A file of the skill, e.g. scripts/run.py; ${SKILL_MD} when left out` }),
});

function readSkillTool(db: Db, agentId: string): Tool {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(readSkillInput, { io: "input" });
  return {
    name: "read_skill",
    description: `Read one of your skills: its ${SKILL_MD} (instructions), or one of its files by path.`,
    inputSchema: inputSchema as Tool["inputSchema"],
    input: readSkillInput,
    run: async (args) => {
      const { name, path = SKILL_MD } = args as z.infer<typeof readSkillInput>;
      // Read at call time: the agent's skills may have changed since the run began.
      const skill = (await skillsOfAgent(db, agentId)).find((carried) => carried.name === name);
      if (!skill) throw new Error(`You have no skill named "${name}"`);
      const file = await db
        .selectFrom("skill_files")
        .select(["content", "size"])
        .where("skill_id", "=", skill.id)
        .where("path", "=", path)
        .executeTakeFirst();
      if (!file) {
        const paths = await db
          .selectFrom("skill_files")
          .select("path")
          .where("skill_id", "=", skill.id)
          .orderBy("path")
          .execute();
        throw new Error(`Skill "${name}" has no file "${path}"; its files: ${paths.map((row) => row.path).join(", ")}`);
      }
      const content = utf8Text(Buffer.from(file.content));
      if (content === undefined) {
        return `"${path}" of skill "${name}" is a binary file (${file.size} bytes): read_skill returns text only`;
      }
      return content;
    },
  };
}
