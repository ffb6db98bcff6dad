// Who a caller is, once a credential has been checked (auth/authenticator.ts).

interface PrincipalUser {
  id: string;
  name: string;
  email: string;
}

export interface Principal {
  user: PrincipalUser;
  /** Set when the caller used a workspace API key: it acts as the key's creator, inside that workspace only. */
  apiKey?: { id: string; workspaceId: string };
  /**
   * Set when the caller used a task token (a runner's agent CLI): it acts as the task's agent, inside that workspace
   * only, with a member's rights; `user` then names the agent.
   */
  agent?: { id: string; workspaceId: string; taskId: string };
}

/** The one workspace a key or task token is confined to; undefined for a signed-in user. */
export const boundWorkspace = (principal: Principal): string | undefined =>
  principal.apiKey?.workspaceId ?? principal.agent?.workspaceId;
