// Create or edit an agent: name, model, instructions, tools, MCP servers, approval rules, max concurrent tasks.
import { type FormEvent, useRef, useState } from "react";
import { api } from "../api.ts";
import type { Agent, RuntimeConfig } from "../api-types.ts";
import { ErrorLine, Field, fieldError, formError } from "../components.tsx";
import { checkForm, json, maxLength, modelName, required, useFocusInvalid, wholeNumber } from "../forms.ts";

const SHOWN = ["name", "model", "instructions", "tools", "runtime_config", "max_concurrent_tasks"];

function list(text: string): string[] {
  return text
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
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusInvalid(formRef, error);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "");
    const invalid = checkForm([
      { field: "name", label: "Name", value: text("name"), checks: [required, maxLength(200)] },
      { field: "model", label: "Model", value: text("model"), checks: [modelName] },
      { field: "instructions", label: "Instructions", value: text("instructions"), checks: [maxLength(100_000)] },
      { field: "runtime_config", label: "MCP servers", value: text("mcp_servers"), checks: [json] },
      {
        field: "max_concurrent_tasks",
        label: "Max concurrent tasks",
        value: text("max_concurrent_tasks"),
        checks: [wholeNumber(1, 100)],
      },
    ]);
    if (invalid) {
      setError(invalid);
      return;
    }
    const mcpServers: unknown = text("mcp_servers").trim() ? JSON.parse(text("mcp_servers")) : [];
    const approvals = list(text("approval_required"));
    const body = {
      name: text("name"),
      model: text("model").trim() || null,
      instructions: text("instructions") || null,
      tools: list(text("tools")),
      runtime_config: { ...(agent?.runtime_config ?? {}), mcp_servers: mcpServers, approval_required: approvals },
      max_concurrent_tasks: Number(text("max_concurrent_tasks")),
    };
    setBusy(true);
    setError(undefined);
    try {
      const saved = agent
        ? await api.patch<Agent>(`workspaces/${props.workspaceId}/agents/${agent.id}`, body)
        : await api.post<Agent>(`workspaces/${props.workspaceId}/agents/`, body);
      props.onSaved(saved);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const configError = fieldError(error, "runtime_config");
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="agent-form">
      <Field label="Name" error={fieldError(error, "name")}>
        {(id, describedBy, invalid) => (
          <input id={id} name="name" defaultValue={agent?.name} aria-describedby={describedBy} aria-invalid={invalid} />
        )}
      </Field>
      <Field label="Model" error={fieldError(error, "model")} hint="<provider>/<model>, e.g. openai/gpt-4o-mini">
        {(id, describedBy, invalid) => (
          <input
            id={id}
            name="model"
            defaultValue={agent?.model ?? ""}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field label="Instructions" error={fieldError(error, "instructions")}>
        {(id, describedBy, invalid) => (
          <textarea
            id={id}
            name="instructions"
            rows={5}
            defaultValue={agent?.instructions ?? ""}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field label="Tools" error={fieldError(error, "tools")} hint="Registered tool names, comma-separated">
        {(id, describedBy, invalid) => (
          <input
            id={id}
            name="tools"
            defaultValue={agent?.tools.join(", ") ?? ""}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field
        label="MCP servers"
        error={configError}
        hint='JSON list: [{"name", "url"}] or [{"name", "command", "args"}]'
      >
        {(id, describedBy, invalid) => (
          <textarea
            id={id}
            name="mcp_servers"
            rows={3}
            defaultValue={config.mcp_servers ? JSON.stringify(config.mcp_servers) : ""}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <Field label="Tools needing approval" hint="Tool names, comma-separated; * for every tool">
        {(id, describedBy) => (
          <input
            id={id}
            name="approval_required"
            defaultValue={config.approval_required?.join(", ") ?? ""}
            aria-describedby={describedBy}
          />
        )}
      </Field>
      <Field label="Max concurrent tasks" error={fieldError(error, "max_concurrent_tasks")} hint="1 to 100">
        {(id, describedBy, invalid) => (
          <input
            id={id}
            name="max_concurrent_tasks"
            type="number"
            defaultValue={agent?.max_concurrent_tasks ?? 1}
            aria-describedby={describedBy}
            aria-invalid={invalid}
          />
        )}
      </Field>
      <ErrorLine error={formError(error, SHOWN)} />
      <button type="submit" className="primary" disabled={busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
