// What the benches share: JSON over HTTP against the server under test, a user of their own, issues in bulk,
// percentiles and how figures print.
import { randomUUID } from "node:crypto";

export const BENCH_PASSWORD = "benchmark password";

/** The JSON answer of `method url` (undefined for 204); throws on any status but 2xx. */
export async function json(method: string, url: string, token?: string, body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** A new user (a unique e-mail) on the server at `base`: the register answer, `{ token, user }`. */
export const register = (base: string, name: string): Promise<any> =>
  json("POST", `${base}/api/v1/auth/register`, undefined, {
    email: `${name}-${randomUUID()}@example.com`,
    password: BENCH_PASSWORD,
    name,
  });

/** `count` issues in the workspace whose base URL is `api`, 50 requests at a time; their ids, in order. */
export async function createIssues(
  api: string,
  token: string,
  count: number,
  issue: (index: number) => Record<string, unknown> = (index) => ({
    title: `Task ${index}`,
    description: "Please triage.",
  }),
): Promise<string[]> {
  const issues: string[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, offset) =>
        json("POST", `${api}/issues/`, token, issue(start + offset)),
      ),
    );
    issues.push(...batch.map((created) => created.id));
  }
  return issues;
}

/** The nearest-rank `p`th percentile of `values` (NaN for none). */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const sleep = (delay: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delay));
export const verdict = (pass: boolean): string => (pass ? "PASS" : "FAIL");
