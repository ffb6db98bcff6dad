// Which page an address inside a workspace names; anything else is "Page not found".
import { NotFound } from "../components.tsx";
import { match } from "../router.tsx";
import { AgentPage } from "./AgentPage.tsx";
import { Agents } from "./Agents.tsx";
import { Approvals } from "./Approvals.tsx";
import { Autopilots } from "./Autopilots.tsx";
import { Board } from "./Board.tsx";
import { Calls } from "./Calls.tsx";
import { Inbox } from "./Inbox.tsx";
import { IssuePage } from "./IssuePage.tsx";
import { Runtimes } from "./runtimes/Runtimes.tsx";
import { Skills } from "./Skills.tsx";
import { SETTINGS_SECTIONS, Settings } from "./settings/Settings.tsx";

export function Page({ path }: { path: string }) {
  const ws = /^\/w\/([^/]+)/.exec(path)?.[1] ?? "";
  const home = `/w/${ws}/board`;
  let params = match("/w/:ws/issues/:issue", path);
  if (params) return <IssuePage key={params.issue} issueId={params.issue!} />;
  params = match("/w/:ws/agents/:agent", path);
  if (params) return <AgentPage key={params.agent} agentId={params.agent!} />;
  params = match("/w/:ws/calls/:call", path);
  if (params) return <Calls callId={params.call!} />;
  params = match("/w/:ws/settings/:section", path);
  if (params) {
    const section = SETTINGS_SECTIONS.find(([slug]) => slug === params?.section);
    return section ? <Settings section={section[0]} /> : <NotFound home={home} />;
  }
  const page = match("/w/:ws/:page", path)?.page ?? (match("/w/:ws", path) ? "board" : undefined);
  switch (page) {
    case "board":
      return <Board />;
    case "inbox":
      return <Inbox />;
    case "agents":
      return <Agents />;
    case "runtimes":
      return <Runtimes />;
    case "approvals":
      return <Approvals />;
    case "autopilots":
      return <Autopilots />;
    case "skills":
      return <Skills />;
    case "calls":
      return <Calls />;
    case "settings":
      return <Settings section="members" />;
    default:
      return <NotFound home={home} />;
  }
}
