// Create or edit an agent: name, model, instructions, tools, MCP servers, approval rules, max concurrent tasks.
import { api } from "../api.ts";
import type { Agent, RuntimeConfig } from "../api-types.ts";
import { ErrorLine, fieldError, formError, InputField, TextAreaField } from "../components.tsx";
import { json, maxLength, modelName, required, text, useForm, wholeNumber } from "../forms.ts";

const SHOWN = ["name", "model", "instructions", "tools", "runtime_config", "max_concurrent_tasks"];

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
        runtime_config: { ...(agent?.runtime_config ?? {}), mcp_servers: mcpServers, approval_required: approvals },
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
      <InputField
        label="Max concurrent tasks"
        error={fieldError(error, "max_concurrent_tasks")}
        hint="1 to 100"
        name="max_concurrent_tasks"
        type="number"
        defaultValue={agent?.max_concurrent_tasks ?? 1}
      />
      <ErrorLine error={formError(error, SHOWN)} />
      <button type="submit" className="primary" disabled={form.busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
