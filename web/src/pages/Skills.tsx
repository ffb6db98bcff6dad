// The workspace's skills (Agent Skills folders): the list, a new one from a zip or from one SKILL.md, and a skill's
// files read in place.
import { useState } from "react";
import { api, getAll, getText, upload } from "../api.ts";
import type { Skill } from "../api-types.ts";
import { Dialog, Empty, ErrorLine, formError, Loaded, Table, TextAreaField } from "../components.tsx";
import { text, useForm } from "../forms.ts";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

const TEMPLATE = "---\nname: my-skill\ndescription: What it is for, and when to use it\n---\n\n# My skill\n\nSteps…\n";

export function Skills() {
  const ws = useWorkspace();
  const skills = useResource(() => getAll<Skill>(`workspaces/${ws.id}/skills`), [ws.id]);
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<Skill | null>(null);
  const [uploadError, setUploadError] = useState<unknown>();

  const uploadZip = async (file: File | undefined) => {
    if (!file) return;
    setUploadError(undefined);
    try {
      await upload<Skill>("POST", `workspaces/${ws.id}/skills`, file, "application/zip");
      skills.reload();
    } catch (error) {
      setUploadError(error);
    }
  };

  return (
    <main className="page">
      <div className="toolbar">
        <h1>Skills</h1>
        <label className="button">
          Upload zip
          <input
            type="file"
            accept=".zip,application/zip"
            className="visually-hidden"
            onChange={(event) => {
              void uploadZip(event.target.files?.[0]);
              event.target.value = "";
            }}
          />
        </label>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New skill
        </button>
      </div>
      <ErrorLine error={uploadError} />
      <Loaded resource={skills} what="the skills">
        {(list) =>
          list.length === 0 ? (
            <Empty>No skills yet. A skill is a SKILL.md and its files; agents read it when a task calls for it.</Empty>
          ) : (
            <Table columns={["Name", "Description", "Files"]}>
              {list.map((skill) => (
                <tr key={skill.id}>
                  <td>
                    <button type="button" className="link" onClick={() => setViewing(skill)}>
                      {skill.name}
                    </button>
                  </td>
                  <td>{skill.description}</td>
                  <td>{skill.files.length}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
      {creating && (
        <Dialog title="New skill" onClose={() => setCreating(false)}>
          <NewSkillForm
            workspaceId={ws.id}
            onSaved={() => {
              setCreating(false);
              skills.reload();
            }}
          />
        </Dialog>
      )}
      {viewing && (
        <SkillFiles
          workspaceId={ws.id}
          skill={viewing}
          onClose={() => setViewing(null)}
          onDeleted={() => {
            setViewing(null);
            skills.reload();
          }}
        />
      )}
    </main>
  );
}

function NewSkillForm(props: { workspaceId: string; onSaved: () => void }) {
  const form = useForm({
    send: async (values) => {
      const content = text(values, "skill_md");
      await api.post<Skill>(`workspaces/${props.workspaceId}/skills`, { files: [{ path: "SKILL.md", content }] });
      props.onSaved();
    },
  });
  return (
    <form {...form.props}>
      <TextAreaField
        label="SKILL.md"
        hint="YAML front matter with name (lower-case letters, digits, -) and description, then the instructions"
        name="skill_md"
        rows={12}
        defaultValue={TEMPLATE}
      />
      <ErrorLine error={formError(form.error, [])} />
      <button type="submit" className="primary" disabled={form.busy}>
        Create skill
      </button>
    </form>
  );
}

function SkillFiles(props: { workspaceId: string; skill: Skill; onClose: () => void; onDeleted: () => void }) {
  const { skill } = props;
  const [shown, setShown] = useState<{ path: string; content: string } | null>(null);
  const [error, setError] = useState<unknown>();
  const base = `workspaces/${props.workspaceId}/skills/${skill.id}`;
  const show = async (path: string) => {
    setError(undefined);
    try {
      const content = await getText(`${base}/files/${path.split("/").map(encodeURIComponent).join("/")}`);
      setShown({ path, content });
    } catch (failure) {
      setError(failure);
    }
  };
  const remove = async () => {
    try {
      await api.delete(base);
      props.onDeleted();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <Dialog title={`Skill ${skill.name}`} onClose={props.onClose}>
      <p>{skill.description}</p>
      <ul aria-label="Files">
        {skill.files.map((file) => (
          <li key={file.path}>
            <button type="button" className="link" onClick={() => void show(file.path)}>
              {file.path}
            </button>{" "}
            <span className="muted">{file.size} bytes</span>
          </li>
        ))}
      </ul>
      {shown && (
        <figure>
          <figcaption>{shown.path}</figcaption>
          <pre>{shown.content}</pre>
        </figure>
      )}
      <ErrorLine error={error} />
      <button type="button" className="danger" onClick={() => void remove()}>
        Delete skill
      </button>
    </Dialog>
  );
}
