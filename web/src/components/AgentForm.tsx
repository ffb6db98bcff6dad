// Create or edit an agent: name, model, instructions, tools, skills, MCP servers, approval rules, where it runs, max
// concurrent tasks.
import { useState } from "react";
import { api, getAll } from "../api.ts";
import type { Agent, RuntimeConfig, Skill } from "../api-types.ts";
import { ErrorLine, fieldError, formError, InputField, TextAreaField } from "../components.tsx";
import { json, maxLength, modelName, required, text, useForm, wholeNumber } from "../forms.ts";
import { useResource } from "../use-resource.ts";
import { RunsOn, runsOnChecks, runsOnOf, withRunsOn } from "./RunsOn.tsx";

const SHOWN = ["name", "model", "instructions", "tools", "skills", "runtime_config", "max_concurrent_tasks"];

function list(value: string): string[] {
  return value
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

export function AgentForm(props: {
  workspaceId: string;
  agent?: Agent;
  submitLabel: string;
  onSaved: (agent: Agent) => void;
}) {
  const { agent } = props;
  const config = (agent?.runtime_config ?? {}) as RuntimeConfig;
  const [runsOn, setRunsOn] = useState(() => runsOnOf(config));
  const skills = useResource(() => getAll<Skill>(`workspaces/${props.workspaceId}/skills`), [props.workspaceId]);
  const form = useForm({
    check: (values) => [
      { field: "name", label: "Name", value: text(values, "name"), checks: [required, maxLength(200)] },
      { field: "model", label: "Model", value: text(values, "model"), checks: [modelName] },
      {
        field: "instructions",
        label: "Instructions",
        value: text(values, "instructions"),
        checks: [maxLength(100_000)],
      },
      { field: "runtime_config", label: "MCP servers", value: text(values, "mcp_servers"), checks: [json] },
      {
        field: "max_concurrent_tasks",
        label: "Max concurrent tasks",
        value: text(values, "max_concurrent_tasks"),
        checks: [wholeNumber(1, 100)],
      },
      ...runsOnChecks(runsOn),
    ],
    send: async (values) => {
      const mcp = text(values, "mcp_servers");
      const mcpServers: unknown = mcp.trim() ? JSON.parse(mcp) : [];
      const approvals = list(text(values, "approval_required"));
      const body = {
        name: text(values, "name"),
        model: text(values, "model").trim() || null,
        instructions: text(values, "instructions") || null,
        tools: list(text(values, "tools")),
        // Until the workspace's skills are listed, the agent's stay as they are.
        ...(skills.data && { skills: values.getAll("skills").map(String) }),
        runtime_config: withRunsOn(
          { ...(agent?.runtime_config ?? {}), mcp_servers: mcpServers, approval_required: approvals },
          runsOn,
        ),
        max_concurrent_tasks: Number(text(values, "max_concurrent_tasks")),
      };
      const saved = agent
        ? await api.patch<Agent>(`workspaces/${props.workspaceId}/agents/${agent.id}`, body)
        : await api.post<Agent>(`workspaces/${props.workspaceId}/agents/`, body);
      props.onSaved(saved);
    },
  });
  const error = form.error;
  return (
    <form {...form.props} className="agent-form">
      <InputField label="Name" error={fieldError(error, "name")} name="name" defaultValue={agent?.name} />
      <InputField
        label="Model"
        error={fieldError(error, "model")}
        hint="<provider>/<model>, e.g. openai/gpt-4o-mini"
        name="model"
        defaultValue={agent?.model ?? ""}
      />
      <TextAreaField
        label="Instructions"
        error={fieldError(error, "instructions")}
        name="instructions"
        rows={5}
        defaultValue={agent?.instructions ?? ""}
      />
      <InputField
        label="Tools"
        error={fieldError(error, "tools")}
        hint="Registered tool names, comma-separated"
        name="tools"
        defaultValue={agent?.tools.join(", ") ?? ""}
      />
      {skills.data && skills.data.length > 0 && (
        <fieldset className="skills-choice">
          <legend>Skills</legend>
          {skills.data.map((skill) => (
            <label key={skill.id} title={skill.description}>
              <input
                type="checkbox"
                name="skills"
                value={skill.id}
                defaultChecked={agent?.skills.includes(skill.id) ?? false}
              />{" "}
              {skill.name}
            </label>
          ))}
          <ErrorLine error={fieldError(error, "skills")} />
        </fieldset>
      )}
      <TextAreaField
        label="MCP servers"
        error={fieldError(error, "runtime_config")}
        hint='JSON list: [{"name", "url"}] or [{"name", "command", "args"}]'
        name="mcp_servers"
        rows={3}
        defaultValue={config.mcp_servers ? JSON.stringify(config.mcp_servers) : ""}
      />
      <InputField
        label="Tools needing approval"
        hint="Tool names, comma-separated; * for every tool"
        name="approval_required"
        defaultValue={config.approval_required?.join(", ") ?? ""}
      />
      <RunsOn value={runsOn} onChange={setRunsOn} errors={(field) => fieldError(error, field)} />
      <InputField
        label="Max concurrent tasks"
        error={fieldError(error, "max_concurrent_tasks")}
        hint="1 to 100"
        name="max_concurrent_tasks"
        type="number"
        defaultValue={agent?.max_concurrent_tasks ?? 1}
      />
      <ErrorLine error={formError(error, [...SHOWN, ...runsOnChecks(runsOn).map((check) => check.field)])} />
      <button type="submit" className="primary" disabled={form.busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
