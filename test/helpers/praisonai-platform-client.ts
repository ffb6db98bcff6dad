// A call-for-call port of PraisonAI's Python `PlatformClient`
// (MervinPraison/PraisonAI, src/praisonai-platform/praisonai_platform/client/platform_client.py) that puts the same
// bytes on the wire as httpx does: `Content-Type: application/json` on every request (even GET and DELETE),
// compact JSON bodies with None sent as null, `Content-Length: 0` on a POST/PUT/PATCH without a body, query
// parameters as strings, and `raise_for_status()` on every response. Method names, paths (with their exact
// trailing slashes) and bodies are the client's own.
import http from "node:http";

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly body: string,
  ) {
    super(`${method} ${path} → ${status}: ${body.slice(0, 300)}`);
  }
}

export interface WireResponse {
  status: number;
  text: string;
  /** What the client's `resp.json()` returns; like httpx, it throws on an empty body (a 204). */
  json(): any;
}

type Json = Record<string, unknown>;

export class PraisonPlatformClient {
  private readonly agent = new http.Agent({ keepAlive: true });
  /** Every request made, for the report of what the client calls. */
  readonly calls: { method: string; path: string; status: number }[] = [];

  constructor(
    private readonly baseUrl: string,
    public token?: string,
  ) {}

  close(): void {
    this.agent.destroy();
  }

  private request(method: string, path: string, json?: Json, params?: Record<string, string>): Promise<WireResponse> {
    const url = new URL(`${this.baseUrl.replace(/\/$/, "")}/api/v1${path}`);
    for (const [key, value] of Object.entries(params ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = {
      host: url.host,
      accept: "*/*",
      "accept-encoding": "gzip, deflate",
      "user-agent": "python-httpx/0.28.1",
      "content-type": "application/json",
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    // httpx: json.dumps(..., ensure_ascii=False, separators=(",", ":")); no body on POST/PUT/PATCH → Content-Length: 0.
    const payload = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
    if (payload) headers["content-length"] = String(payload.length);
    else if (["POST", "PUT", "PATCH"].includes(method)) headers["content-length"] = "0";
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString("utf8");
            this.calls.push({ method, path, status });
            if (status < 200 || status >= 300) return reject(new HttpStatusError(status, method, path, text));
            resolve({ status, text, json: () => JSON.parse(text) });
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  // ── Auth
  async register(email: string, password: string, name: string | null = null) {
    const resp = await this.request("POST", "/auth/register", { email, password, name });
    this.token = resp.json().token;
    return resp;
  }
  async login(email: string, password: string) {
    const resp = await this.request("POST", "/auth/login", { email, password });
    this.token = resp.json().token;
    return resp;
  }
  get_me = () => this.request("GET", "/auth/me");

  // ── Workspaces
  create_workspace = (name: string, slug: string | null = null) => this.request("POST", "/workspaces/", { name, slug });
  list_workspaces = () => this.request("GET", "/workspaces/");
  get_workspace = (ws: string) => this.request("GET", `/workspaces/${ws}`);
  update_workspace = (ws: string, fields: Json) => this.request("PATCH", `/workspaces/${ws}`, fields);
  delete_workspace = (ws: string) => this.request("DELETE", `/workspaces/${ws}`);

  // ── Members (the client calls the path parameter member_id; the server takes the member's user id there)
  add_member = (ws: string, user_id: string, role = "member") =>
    this.request("POST", `/workspaces/${ws}/members`, { user_id, role });
  list_members = (ws: string) => this.request("GET", `/workspaces/${ws}/members`);
  update_member_role = (ws: string, member_id: string, role: string) =>
    this.request("PATCH", `/workspaces/${ws}/members/${member_id}`, { role });
  remove_member = (ws: string, member_id: string) => this.request("DELETE", `/workspaces/${ws}/members/${member_id}`);

  // ── Projects
  create_project = (ws: string, title: string, description: string | null = null) =>
    this.request("POST", `/workspaces/${ws}/projects/`, { title, description });
  list_projects = (ws: string) => this.request("GET", `/workspaces/${ws}/projects/`);
  get_project = (ws: string, id: string) => this.request("GET", `/workspaces/${ws}/projects/${id}`);
  update_project = (ws: string, id: string, fields: Json) =>
    this.request("PATCH", `/workspaces/${ws}/projects/${id}`, fields);
  delete_project = (ws: string, id: string) => this.request("DELETE", `/workspaces/${ws}/projects/${id}`);
  get_project_stats = (ws: string, id: string) => this.request("GET", `/workspaces/${ws}/projects/${id}/stats`);

  // ── Issues
  create_issue(
    ws: string,
    title: string,
    options: {
      description?: string;
      project_id?: string;
      priority?: string;
      assignee_type?: string;
      assignee_id?: string;
    } = {},
  ) {
    const body: Json = { title, priority: options.priority ?? "none" };
    if (options.description) body.description = options.description;
    if (options.project_id) body.project_id = options.project_id;
    if (options.assignee_type) body.assignee_type = options.assignee_type;
    if (options.assignee_id) body.assignee_id = options.assignee_id;
    return this.request("POST", `/workspaces/${ws}/issues/`, body);
  }
  list_issues(ws: string, filters: { status?: string; project_id?: string } = {}) {
    const params: Record<string, string> = {};
    if (filters.status) params.status = filters.status;
    if (filters.project_id) params.project_id = filters.project_id;
    return this.request("GET", `/workspaces/${ws}/issues/`, undefined, params);
  }
  get_issue = (ws: string, id: string) => this.request("GET", `/workspaces/${ws}/issues/${id}`);
  update_issue = (ws: string, id: string, fields: Json) =>
    this.request("PATCH", `/workspaces/${ws}/issues/${id}`, fields);
  delete_issue = (ws: string, id: string) => this.request("DELETE", `/workspaces/${ws}/issues/${id}`);

  // ── Comments
  add_comment = (ws: string, issue: string, content: string) =>
    this.request("POST", `/workspaces/${ws}/issues/${issue}/comments`, { content });
  list_comments = (ws: string, issue: string) => this.request("GET", `/workspaces/${ws}/issues/${issue}/comments`);

  // ── Agents
  create_agent(ws: string, name: string, runtime_mode = "local", instructions: string | null = null) {
    const body: Json = { name, runtime_mode };
    if (instructions) body.instructions = instructions;
    return this.request("POST", `/workspaces/${ws}/agents/`, body);
  }
  list_agents = (ws: string) => this.request("GET", `/workspaces/${ws}/agents/`);
  get_agent = (ws: string, id: string) => this.request("GET", `/workspaces/${ws}/agents/${id}`);
  update_agent = (ws: string, id: string, fields: Json) =>
    this.request("PATCH", `/workspaces/${ws}/agents/${id}`, fields);
  delete_agent = (ws: string, id: string) => this.request("DELETE", `/workspaces/${ws}/agents/${id}`);

  // ── Labels
  create_label(ws: string, name: string, color = "#000000", description: string | null = null) {
    const body: Json = { name, color };
    if (description) body.description = description;
    return this.request("POST", `/workspaces/${ws}/labels/`, body);
  }
  list_labels = (ws: string) => this.request("GET", `/workspaces/${ws}/labels/`);
  update_label = (ws: string, id: string, fields: Json) =>
    this.request("PATCH", `/workspaces/${ws}/labels/${id}`, fields);
  delete_label = (ws: string, id: string) => this.request("DELETE", `/workspaces/${ws}/labels/${id}`);
  add_label_to_issue = (ws: string, issue: string, label: string) =>
    this.request("POST", `/workspaces/${ws}/issues/${issue}/labels/${label}`);
  remove_label_from_issue = (ws: string, issue: string, label: string) =>
    this.request("DELETE", `/workspaces/${ws}/issues/${issue}/labels/${label}`);
  list_issue_labels = (ws: string, issue: string) => this.request("GET", `/workspaces/${ws}/issues/${issue}/labels`);

  // ── Dependencies (no `type` in the body: the server's default applies)
  create_dependency = (ws: string, issue: string, depends_on_issue_id: string) =>
    this.request("POST", `/workspaces/${ws}/issues/${issue}/dependencies`, { depends_on_issue_id });
  list_dependencies = (ws: string, issue: string) =>
    this.request("GET", `/workspaces/${ws}/issues/${issue}/dependencies`);
  delete_dependency = (ws: string, issue: string, dependency: string) =>
    this.request("DELETE", `/workspaces/${ws}/issues/${issue}/dependencies/${dependency}`);

  // ── Activity
  list_workspace_activity = (ws: string, limit = 50) =>
    this.request("GET", `/workspaces/${ws}/activity`, undefined, { limit: String(limit) });
  list_issue_activity = (ws: string, issue: string, limit = 50) =>
    this.request("GET", `/workspaces/${ws}/issues/${issue}/activity`, undefined, { limit: String(limit) });
}
