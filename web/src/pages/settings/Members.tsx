// Members and roles: change a role, add someone by email, remove a member or leave (each asked first).
import { type FormEvent, useRef, useState } from "react";
import { api } from "../../api.ts";
import type { Member } from "../../api-types.ts";
import { useConfirm } from "../../components/ConfirmDialog.tsx";
import { ErrorLine, Field, fieldError, formError } from "../../components.tsx";
import { checkForm, email, required, useFocusInvalid } from "../../forms.ts";
import { useSession } from "../../use-resource.ts";
import { useWorkspace } from "../../workspace.tsx";

const ROLES = ["owner", "admin", "member"] as const;

export function Members() {
  const ws = useWorkspace();
  const session = useSession();
  const confirm = useConfirm();
  const [error, setError] = useState<unknown>();
  const [addError, setAddError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);
  useFocusInvalid(form, addError);

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
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    const values = new FormData(target);
    const address = String(values.get("email") ?? "");
    const invalid = checkForm([{ field: "email", label: "Email", value: address, checks: [required, email] }]);
    if (invalid) {
      setAddError(invalid);
      return;
    }
    setAddError(undefined);
    try {
      await api.post(`workspaces/${ws.id}/members`, { email: address.trim(), role: String(values.get("role")) });
      target.reset();
      ws.reload();
    } catch (failure) {
      setAddError(failure);
    }
  };

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <ErrorLine error={error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
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
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
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
          </tbody>
        </table>
      </div>
      <h3>Add a member</h3>
      <form ref={form} onSubmit={add} className="inline-form" noValidate>
        <Field label="Member email" error={fieldError(addError, "email", "user_id")}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="email"
              type="email"
              placeholder="someone@example.com"
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </Field>
        <Field label="Role" error={fieldError(addError, "role")}>
          {(id) => (
            <select id={id} name="role" defaultValue="member">
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit">Add member</button>
      </form>
      <ErrorLine error={formError(addError, ["email", "user_id", "role"])} />
      {confirm.dialog}
    </section>
  );
}
