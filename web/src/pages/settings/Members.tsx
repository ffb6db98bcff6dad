// Members and roles: change a role, add someone by email, remove a member or leave (each asked first).
import { useState } from "react";
import { api } from "../../api.ts";
import type { Member } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { ErrorLine, Field, fieldError, formError, InputField, Options, Table } from "../../components.tsx";
import { email, required, text, useForm } from "../../forms.ts";
import { useSession } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";
import { SettingsSection } from "./SettingsSection.tsx";

const ROLES = (["owner", "admin", "member"] as const).map((role) => [role, role] as const);

export function Members() {
  const ws = useWorkspace();
  const session = useSession();
  const confirm = useConfirm();
  const [error, setError] = useState<unknown>();
  const changeRole = (member: Member, role: string) => {
    setError(undefined);
    api.patch(`workspaces/${ws.id}/members/${member.user_id}`, { role }).then(ws.reload, (failure) => {
      setError(failure);
      ws.reload();
    });
  };
  const remove = (member: Member) => {
    const path = `workspaces/${ws.id}/members/${member.user_id}`;
    if (member.user_id === session?.user.id)
      confirm.ask(
        "Leave this workspace?",
        "Leave workspace",
        "You lose access to its board, agents and settings until someone adds you again.",
        async () => {
          await api.delete(path);
          window.location.assign("/");
        },
      );
    else
      confirm.ask(
        `Remove ${member.user.name}?`,
        "Remove member",
        `${member.user.name} (${member.user.email}) loses access to this workspace.`,
        async () => {
          await api.delete(path);
          ws.reload();
        },
      );
  };
  const adding = useForm({
    check: (values) => [{ field: "email", label: "Email", value: text(values, "email"), checks: [required, email] }],
    send: async (values, target) => {
      await api.post(`workspaces/${ws.id}/members`, {
        email: text(values, "email").trim(),
        role: text(values, "role"),
      });
      target.reset();
      ws.reload();
    },
  });

  return (
    <SettingsSection title="Members">
      <ErrorLine error={error} />
      <Table columns={["Name", "Email", "Role"]} actions>
        {ws.members.map((member) => {
          const me = member.user_id === session?.user.id;
          return (
            <tr key={member.user_id}>
              <td>
                {member.user.name}
                {me && <span className="tag">you</span>}
              </td>
              <td className="wrap">{member.user.email}</td>
              <td>
                <select
                  aria-label={`Role of ${member.user.name}`}
                  value={member.role}
                  disabled={me}
                  onChange={(event) => changeRole(member, event.target.value)}
                >
                  <Options of={ROLES} />
                </select>
              </td>
              <td>
                <button type="button" className="ghost small" onClick={() => remove(member)}>
                  {me ? "Leave" : "Remove"}
                </button>
              </td>
            </tr>
          );
        })}
      </Table>
      <h3>Add a member</h3>
      <form {...adding.props} className="inline-form">
        <InputField
          label="Member email"
          error={fieldError(adding.error, "email", "user_id")}
          name="email"
          type="email"
          placeholder="someone@example.com"
        />
        <Field label="Role" error={fieldError(adding.error, "role")}>
          {({ id }) => (
            <select id={id} name="role" defaultValue="member">
              <Options of={ROLES} />
            </select>
          )}
        </Field>
        <button type="submit">Add member</button>
      </form>
      <ErrorLine error={formError(adding.error, ["email", "user_id", "role"])} />
      {confirm.dialog}
    </SettingsSection>
  );
}
