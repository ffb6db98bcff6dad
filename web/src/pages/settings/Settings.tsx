// Settings, one section per address (/settings/members, …/api-keys, …/webhooks, …/projects, …/labels).
import { Link } from "../../router.tsx";
import { useWorkspace } from "../../workspace.tsx";
import { ApiKeys } from "./ApiKeys.tsx";
import { Labels } from "./Labels.tsx";
import { Members } from "./Members.tsx";
import { Projects } from "./Projects.tsx";
import { Usage } from "./Usage.tsx";
import { Webhooks } from "./Webhooks.tsx";

export const SETTINGS_SECTIONS = [
  ["members", "Members"],
  ["api-keys", "API keys"],
  ["webhooks", "Webhooks"],
  ["projects", "Projects"],
  ["labels", "Labels"],
  ["usage", "Usage"],
] as const;

type SettingsSection = (typeof SETTINGS_SECTIONS)[number][0];

const SECTIONS: Record<SettingsSection, () => React.ReactNode> = {
  members: Members,
  "api-keys": ApiKeys,
  webhooks: Webhooks,
  projects: Projects,
  labels: Labels,
  usage: Usage,
};

export function Settings({ section }: { section: SettingsSection }) {
  const ws = useWorkspace();
  const Section = SECTIONS[section];
  return (
    <main className="page settings">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" className="tabs">
        {SETTINGS_SECTIONS.map(([slug, title]) => (
          <Link
            key={slug}
            to={`/w/${ws.id}/settings/${slug}`}
            aria-current={slug === section ? "page" : undefined}
            className={slug === section ? "active" : ""}
          >
            {title}
          </Link>
        ))}
      </nav>
      <Section />
    </main>
  );
}
