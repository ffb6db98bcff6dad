// The board's filters and view live in the address (`?assignee=agent:…&label=…&view=list`), so a reload or a shared
// link shows the same board.
import { query } from "../api.ts";
import { replaceQuery } from "../router.tsx";

export interface Filters {
  q: string;
  /** `member:<user id>` or `agent:<agent id>`. */
  assignee: string;
  label: string;
  priority: string;
  project: string;
}

export type View = "board" | "list";

const KEYS = ["q", "assignee", "label", "priority", "project"] as const;

export function readFilters(search: string): { filters: Filters; view: View } {
  const params = new URLSearchParams(search);
  const filters = Object.fromEntries(KEYS.map((key) => [key, params.get(key) ?? ""])) as unknown as Filters;
  return { filters, view: params.get("view") === "list" ? "list" : "board" };
}

export function writeFilters(filters: Filters, view: View): void {
  replaceQuery({ ...filters, view: view === "list" ? "list" : "" });
}

export const isUnfiltered = (filters: Filters): boolean => KEYS.every((key) => filters[key] === "");

/** The issue list's query string for these filters. */
export function issueQuery(filters: Filters): string {
  const [type, id] = filters.assignee.split(":");
  return query({
    q: filters.q.trim() || undefined,
    priority: filters.priority || undefined,
    project_id: filters.project || undefined,
    label_id: filters.label || undefined,
    assignee_type: type || undefined,
    assignee_id: id || undefined,
  });
}
