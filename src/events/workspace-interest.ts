// Which event types a per-workspace reader (webhook fan-out, autopilot event triggers) wants in each workspace,
// remembered from its last read there, so a hint carrying an event it cannot want costs no query (most workspaces
// have no hooks nor autopilots, and most events concern neither). Changes to what it wants are themselves events:
// seeing one, or a hint without its event, forgets the workspace. Readers keep a periodic sweep for hints that never
// came, and forget everything when the listener reconnected (hints may have been missed).
import { matchesTypes } from "./types.ts";

/** Workspaces remembered; past this many the memory starts over. */
const REMEMBERED = 10_000;

export class WorkspaceInterest {
  /** Per workspace, the type patterns wanted (`[]` = everything), or null for nothing at all. */
  private readonly wanted = new Map<string, readonly string[] | null>();
  /** Counts the forgettings, so a read that began before one does not remember what it read. */
  private forgotten = 0;

  /** `changes(type)`: whether an event of this type may change what is wanted. */
  constructor(private readonly changes: (type: string) => boolean) {}

  /**
   * Whether a hint for the workspace may concern the reader (`event`: the hint's, when it carried one). Forgets the
   * workspace when the event may change what it wants, or is unknown.
   */
  concerns(workspaceId: string, event?: { type: string }): boolean {
    if (!event || this.changes(event.type)) {
      this.forget(workspaceId);
      return true;
    }
    const wanted = this.wanted.get(workspaceId);
    if (wanted === undefined) return true;
    return wanted !== null && matchesTypes(wanted, event.type);
  }

  /** A mark to pass to `remember`: taken before the read whose result is remembered. */
  mark(): number {
    return this.forgotten;
  }

  /** What a read begun at `mark` found wanted: one pattern list per hook or autopilot (none: nothing wanted). */
  remember(workspaceId: string, mark: number, patternLists: ReadonlyArray<readonly string[]>): void {
    if (mark !== this.forgotten) return;
    if (this.wanted.size >= REMEMBERED) this.wanted.clear();
    this.wanted.set(workspaceId, union(patternLists));
  }

  forget(workspaceId?: string): void {
    this.forgotten++;
    if (workspaceId === undefined) this.wanted.clear();
    else this.wanted.delete(workspaceId);
  }
}

/** The patterns of several filters together: null when there are none, `[]` when one takes everything. */
function union(patternLists: ReadonlyArray<readonly string[]>): readonly string[] | null {
  if (patternLists.length === 0) return null;
  if (patternLists.some((patterns) => patterns.length === 0)) return [];
  return [...new Set(patternLists.flat())];
}
