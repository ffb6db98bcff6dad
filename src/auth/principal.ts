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
}
