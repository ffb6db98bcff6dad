// The board: a column per status, cards dragged between them or moved with their Move menu (PATCH status, shown at
// once), filters and search kept in the address, a list view of the same issues, each card's work state, and the
// keys: `c` new issue, `/` search, `j`/`k` between cards (Enter opens one).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, getAll } from "../api.ts";
import type { Issue, IssueStatus } from "../api-types.ts";
import { Columns } from "../board/Columns.tsx";
import { type Filters, issueQuery, isUnfiltered, readFilters, type View, writeFilters } from "../board/filters.ts";
import { IssueTable } from "../board/IssueTable.tsx";
import { Toolbar } from "../board/Toolbar.tsx";
import { useWorkStates } from "../board/work-states.ts";
import { ErrorLine, Loaded } from "../components.tsx";
import { isTyping } from "../keys.ts";
import { useCoalesced, useWorkspaceEvents } from "../live.ts";
import { useLocation } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";
import { NewIssueDialog } from "./NewIssueDialog.tsx";

/** The card links in reading order (column by column, or row by row in the list). */
const cardLinks = () => [...document.querySelectorAll<HTMLElement>("main a.card-link")];

function focusCard(issueId: string): void {
  const link = document.querySelector<HTMLElement>(`main a.card-link[href$="/issues/${CSS.escape(issueId)}"]`);
  link?.focus();
  link?.scrollIntoView({ block: "nearest", inline: "nearest" });
}

export function Board() {
  const ws = useWorkspace();
  const { search: address } = useLocation();
  const { filters, view } = useMemo(() => readFilters(address), [address]);
  const [creating, setCreating] = useState(false);
  const [moveError, setMoveError] = useState<unknown>();
  const search = useRef<HTMLInputElement>(null);
  const refocus = useRef<string | null>(null);
  const work = useWorkStates(ws.id);

  const issues = useResource(
    () => getAll<Issue>(`workspaces/${ws.id}/issues/${issueQuery(filters)}`),
    [ws.id, filters],
  );
  const reloadIssues = useCoalesced(() => issues.reload(), 50);
  const unfiltered = isUnfiltered(filters);
  /** Without filters one changed issue is fetched and patched in; with filters the list is asked again. */
  const applyIssueEvent = async (issueId: string, deleted: boolean) => {
    if (deleted) return issues.set((list) => list.filter((issue) => issue.id !== issueId));
    try {
      const fresh = await api.get<Issue>(`workspaces/${ws.id}/issues/${issueId}`);
      issues.set((list) =>
        list.some((issue) => issue.id === issueId)
          ? list.map((issue) => (issue.id === issueId ? fresh : issue))
          : [...list, fresh],
      );
    } catch {
      reloadIssues();
    }
  };
  useWorkspaceEvents(ws.id, (event) => {
    const changesOne =
      event.type.startsWith("issue.") || event.type === "label.linked" || event.type === "label.unlinked";
    const issueId = event.type.startsWith("issue.") ? event.entity_id : event.issue_id;
    if (changesOne && unfiltered && issueId && issues.data)
      void applyIssueEvent(issueId, event.type === "issue.deleted");
    else if (changesOne || ["stream.open", "label.deleted", "project.deleted"].includes(event.type)) reloadIssues();
  });

  // After a move from the keyboard the card is in another column: the focus follows it there.
  useEffect(() => {
    if (!refocus.current || !issues.data) return;
    focusCard(refocus.current);
    refocus.current = null;
  }, [issues.data]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "c") {
        event.preventDefault();
        setCreating(true);
      } else if (event.key === "/") {
        event.preventDefault();
        search.current?.focus();
      } else if (event.key === "j" || event.key === "k") {
        const links = cardLinks();
        if (links.length === 0) return;
        event.preventDefault();
        const at = links.indexOf(document.activeElement as HTMLElement);
        const next = at === -1 ? 0 : Math.min(Math.max(at + (event.key === "j" ? 1 : -1), 0), links.length - 1);
        links[next]!.focus();
        links[next]!.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const latest = useRef(issues.data);
  latest.current = issues.data;
  const move = useCallback(
    async (issueId: string, status: IssueStatus, fromKeyboard: boolean) => {
      const before = latest.current?.find((issue) => issue.id === issueId);
      if (!before || before.status === status) return;
      setMoveError(undefined);
      if (fromKeyboard) refocus.current = issueId;
      issues.set((list) => list.map((issue) => (issue.id === issueId ? { ...issue, status } : issue)));
      try {
        await api.patch(`workspaces/${ws.id}/issues/${issueId}`, { status });
      } catch (failure) {
        setMoveError(failure);
        issues.reload();
      }
    },
    [ws.id, issues.set, issues.reload],
  );

  const setFilters = (next: Filters, nextView: View) => writeFilters(next, nextView);

  return (
    <main className="page board-page">
      <Toolbar
        ws={ws}
        filters={filters}
        view={view}
        search={search}
        onFilters={setFilters}
        onNewIssue={() => setCreating(true)}
      />
      <ErrorLine error={moveError} />
      <Loaded resource={issues} what="the issues">
        {(list) =>
          view === "board" ? (
            <Columns issues={list} ws={ws} work={work} onMove={move} />
          ) : list.length === 0 ? (
            <p className="empty">{unfiltered ? "No issues yet." : "No issues match these filters."}</p>
          ) : (
            <IssueTable issues={list} ws={ws} work={work} />
          )
        }
      </Loaded>
      {creating && <NewIssueDialog onClose={() => setCreating(false)} onCreated={() => issues.reload()} />}
    </main>
  );
}
