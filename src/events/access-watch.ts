// How a stream of a workspace's data outside the events plugin (a run's events) ends when its viewer loses access,
// exactly as the workspace event stream does: it watches the same feed of the workspace's events (stream.ts).
// server.ts hands one instance to the events plugin, which attaches its hub, and to the features that stream.
import type { EventStreamHub, SubscriberIdentity } from "./stream.ts";

export class AccessWatch {
  private hub: EventStreamHub | undefined;

  attach(hub: EventStreamHub): void {
    this.hub = hub;
  }

  /**
   * Calls `onLost` once `viewer` is removed from the workspace or leaves it, its API key is revoked, or the workspace
   * is deleted. Returns the function that stops watching.
   */
  watch(workspaceId: string, viewer: SubscriberIdentity, onLost: () => void): () => void {
    if (!this.hub) throw new Error("AccessWatch used before the events plugin attached its hub");
    return this.hub.watchAccess(workspaceId, viewer, onLost);
  }
}
