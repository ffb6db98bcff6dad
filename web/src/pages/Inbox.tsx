// The signed-in person's inbox, across their workspaces: newest first, new items arriving live, each read with
// Mark read (or by opening its issue), all at once with Mark all read. `?unread=1` shows only the unread ones.
import { useState } from "react";
import { api, getAll } from "../api.ts";
import type { InboxItem, Workspace } from "../api-types.ts";
import { Time } from "../components/Time.tsx";
import { Empty, ErrorLine, Loaded } from "../components.tsx";
import { refreshUnread, useInboxItems } from "../inbox-live.ts";
import { useCoalesced } from "../live.ts";
import { Link, replaceQuery, useLocation } from "../router.tsx";
import { useResource } from "../use-resource.ts";
import { useWorkspace } from "../workspace.tsx";

const PAGE = 50;

const KIND_WORDS: Record<InboxItem["kind"], string> = {
  approval_requested: "Approval",
  question_asked: "Question",
  mentioned: "Mention",
  task_failed: "Failed task",
  assigned: "Assigned",
  budget_warning: "Budget",
  budget_exceeded: "Budget",
};

export function Inbox() {
  const ws = useWorkspace();
  const unreadOnly = new URLSearchParams(useLocation().search).get("unread") === "1";
  const filter = unreadOnly ? "&unread=true" : "";
  const inbox = useResource(async () => {
    const [items, workspaces] = await Promise.all([
      api.get<InboxItem[]>(`me/inbox?limit=${PAGE}${filter}`),
      getAll<Workspace>("workspaces/"),
    ]);
    return { items, more: items.length === PAGE, names: new Map(workspaces.map((each) => [each.id, each.name])) };
  }, [filter]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const reload = useCoalesced(inbox.reload);
  useInboxItems((item) => {
    if (!item) return reload();
    inbox.set((data) =>
      data.items.some((each) => each.id === item.id) ? data : { ...data, items: [item, ...data.items] },
    );
  });

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      refreshUnread();
    }
  };
  const markRead = (item: InboxItem) =>
    act(async () => {
      const read = await api.post<InboxItem>(`me/inbox/${item.id}/read`);
      inbox.set((data) => ({ ...data, items: data.items.map((each) => (each.id === read.id ? read : each)) }));
    });
  const markAllRead = () =>
    act(async () => {
      await api.post("me/inbox/read-all");
      const at = new Date().toISOString().slice(0, 23);
      inbox.set((data) => ({ ...data, items: data.items.map((each) => ({ ...each, read_at: each.read_at ?? at })) }));
    });
  const showMore = (offset: number) =>
    act(async () => {
      const next = await api.get<InboxItem[]>(`me/inbox?limit=${PAGE}&offset=${offset}${filter}`);
      inbox.set((data) => ({
        ...data,
        items: [...data.items, ...next.filter((item) => !data.items.some((each) => each.id === item.id))],
        more: next.length === PAGE,
      }));
    });

  return (
    <main className="page inbox-page">
      <div className="toolbar">
        <h1>Inbox</h1>
        <fieldset className="segmented" aria-label="Show">
          <button type="button" aria-pressed={!unreadOnly} onClick={() => replaceQuery({})}>
            All
          </button>
          <button type="button" aria-pressed={unreadOnly} onClick={() => replaceQuery({ unread: "1" })}>
            Unread
          </button>
        </fieldset>
        <button type="button" className="primary" disabled={busy} onClick={markAllRead}>
          Mark all read
        </button>
      </div>
      <ErrorLine error={error} />
      <Loaded resource={inbox} what="your inbox">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>
              {unreadOnly ? "Nothing unread." : "Nothing here yet: mentions, assignments and requests land here."}
            </Empty>
          ) : (
            <>
              <ul className="inbox">
                {data.items.map((item) => (
                  <InboxEntry
                    key={item.id}
                    item={item}
                    workspaceName={item.workspace_id === ws.id ? undefined : data.names.get(item.workspace_id)}
                    busy={busy}
                    onRead={() => markRead(item)}
                  />
                ))}
              </ul>
              {data.more && (
                <button type="button" disabled={busy} onClick={() => showMore(data.items.length)}>
                  Show more
                </button>
              )}
            </>
          )
        }
      </Loaded>
    </main>
  );
}

function InboxEntry(props: { item: InboxItem; workspaceName: string | undefined; busy: boolean; onRead: () => void }) {
  const { item } = props;
  const unread = item.read_at === null;
  const issuePath = item.issue_id ? `/w/${item.workspace_id}/issues/${item.issue_id}` : undefined;
  return (
    <li className={`card inbox-item${unread ? " unread" : ""}`}>
      <p className="inbox-title">
        <span className="tag">{KIND_WORDS[item.kind]}</span>{" "}
        {issuePath ? (
          <Link to={issuePath} onClick={unread ? props.onRead : undefined}>
            {item.title}
          </Link>
        ) : (
          <strong>{item.title}</strong>
        )}
        {unread && <span className="visually-hidden"> (unread)</span>}
      </p>
      {item.body && <p className="inbox-body">{item.body}</p>}
      <p className="muted inbox-meta">
        <Time iso={item.created_at} />
        {props.workspaceName && <> · {props.workspaceName}</>}
        {unread && (
          <button type="button" className="small" disabled={props.busy} onClick={props.onRead}>
            Mark read<span className="visually-hidden">: {item.title}</span>
          </button>
        )}
      </p>
    </li>
  );
}
