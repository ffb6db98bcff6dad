// The environment an agent CLI gets: the runner's own, minus its credentials and settings, plus the task's. The
// task token is the CLI's only credential to the platform; the runner token never reaches it.

export const RUNNER_TOKEN_VARIABLE = "AGENT_PLATFORM_RUNNER_TOKEN";
/** The runner's own settings (and token) all start so; the task's variables use the same prefix. */
const RUNNER_PREFIX = "AGENT_PLATFORM_";

interface EnvironmentPolicy {
  /** The runner token, wherever it came from (`--token` or the environment): no variable holding it is passed on. */
  runnerToken: string;
  /** Names from `--no-env`; a trailing `*` drops every name with that prefix. */
  withheld: readonly string[];
}

/** The runner's environment without anything it must not hand to a CLI. */
export function scrubbedEnvironment(
  runnerEnv: Readonly<Record<string, string | undefined>>,
  policy: EnvironmentPolicy,
): Record<string, string> {
  const withheld = policy.withheld.map((pattern) => pattern.trim()).filter((pattern) => pattern !== "");
  const isWithheld = (name: string) =>
    withheld.some((pattern) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(runnerEnv)) {
    if (value === undefined) continue;
    if (name.startsWith(RUNNER_PREFIX) || isWithheld(name)) continue;
    if (policy.runnerToken !== "" && value.includes(policy.runnerToken)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}

/** The variable every CLI gets the task token in (Codex reads its MCP bearer token from it). */
export const TASK_TOKEN_VARIABLE = "AGENT_PLATFORM_TOKEN";

/** What every CLI of a task is told about the platform (a `command` runtime reads nothing else). */
interface TaskVariables {
  url: string;
  taskToken: string;
  mcpUrl: string;
  taskId: string;
  issueIdentifier: string;
}

export function taskVariables(task: TaskVariables): Record<string, string> {
  return {
    AGENT_PLATFORM_URL: task.url,
    [TASK_TOKEN_VARIABLE]: task.taskToken,
    AGENT_PLATFORM_MCP_URL: task.mcpUrl,
    AGENT_PLATFORM_TASK_ID: task.taskId,
    AGENT_PLATFORM_ISSUE: task.issueIdentifier,
  };
}
