// Several real `agent-platform serve` (and `call`) processes on one database, behind haproxy in round-robin mode
// with no stickiness, configured by the repository's own deploy/haproxy.cfg (only its ports rewritten).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "./app.ts";
import { ROOT, type ServerProcess, startBin } from "./bin.ts";
import { eventually } from "./eventually.ts";
import { requireTool } from "./system-tools.ts";

/** Shared by every process of a cluster, as a deployment must (a token from one is checked by another). */
const CLUSTER_JWT_SECRET = "cluster-test-secret-0123456789abcdef-0123456789";

export interface PlatformProcess extends ServerProcess {
  api: ApiClient;
}

/** `agent-platform <command> --port 0` as a user starts it, resolved once it printed the address it listens on. */
export async function startProcess(
  command: "serve" | "call",
  env: Record<string, string>,
  args: string[] = [],
  startTimeoutMs = 120_000,
): Promise<PlatformProcess> {
  const started = await startBin(command, args, { env, startTimeoutMs });
  return { ...started, api: new ApiClient(started.url) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

interface Proxy {
  /** The platform frontend (serve processes). */
  url: string;
  /** The call frontend (call processes), when there are any. */
  callUrl: string;
  api: ApiClient;
  /** Requests each backend process got, by haproxy server name (serve1…, call1…), from haproxy's statistics. */
  servedBy(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * deploy/haproxy.cfg with its ports rewritten: its frontends and stats page on free ports, and one `server` line
 * per process (the options of the file's first server line of that backend).
 */
function renderHaproxyConfig(
  template: string,
  ports: { platform: number; call: number; stats: number },
  backends: { serve: number[]; call: number[] },
): string {
  const lines: string[] = [];
  const written = new Set<string>();
  for (const line of template.split("\n")) {
    const server = /^(\s*)server (serve|call)\d+ 127\.0\.0\.1:\d+(.*)$/.exec(line);
    if (server) {
      const [, indent, kind, options] = server as unknown as [string, string, "serve" | "call", string];
      if (written.has(kind)) continue;
      written.add(kind);
      backends[kind].forEach((port, index) => {
        lines.push(`${indent}server ${kind}${index + 1} 127.0.0.1:${port}${options}`);
      });
      continue;
    }
    lines.push(
      line
        .replace(/bind 127\.0\.0\.1:8000$/, `bind 127.0.0.1:${ports.platform}`)
        .replace(/bind 127\.0\.0\.1:8090$/, `bind 127.0.0.1:${ports.call}`)
        .replace(/bind 127\.0\.0\.1:8404$/, `bind 127.0.0.1:${ports.stats}`),
    );
  }
  return lines.join("\n");
}

export async function startHaproxy(backends: { serve: number[]; call: number[] }): Promise<Proxy> {
  const ports = { platform: await freePort(), call: await freePort(), stats: await freePort() };
  const dir = mkdtempSync(join(tmpdir(), "agent-platform-haproxy-"));
  const file = join(dir, "haproxy.cfg");
  const template = readFileSync(join(ROOT, "deploy/haproxy.cfg"), "utf8");
  // A backend section with no server left would be refused: a cluster without call (or serve) processes drops that
  // half of the file.
  let kept = template;
  if (!backends.call.length) kept = kept.replace(/frontend call[\s\S]*?(?=listen stats)/, "");
  if (!backends.serve.length) kept = kept.replace(/frontend platform[\s\S]*?(?=frontend call)/, "");
  const config = renderHaproxyConfig(kept, ports, backends);
  writeFileSync(file, config);
  const child = spawn(requireTool("haproxy"), ["-f", file, "-db"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${ports.platform}`;
  const statsUrl = `http://127.0.0.1:${ports.stats}/stats;csv`;
  const answering = eventually(
    () =>
      fetch(statsUrl).then(
        (response) => response.ok,
        () => false,
      ),
    "haproxy to answer on its statistics page",
    10_000,
  );
  await Promise.race([
    answering,
    exited.then(() => {
      throw new Error(`haproxy exited: ${stderr}`);
    }),
  ]);
  return {
    url,
    callUrl: `http://127.0.0.1:${ports.call}`,
    api: new ApiClient(url),
    servedBy: async () => {
      const csv = await (await fetch(statsUrl)).text();
      const [header, ...rows] = csv.trim().split("\n");
      const columns = (header ?? "").replace(/^# /, "").split(",");
      const name = columns.indexOf("svname");
      const total = columns.indexOf("stot");
      const counts: Record<string, number> = {};
      for (const row of rows) {
        const cells = row.split(",");
        const server = cells[name] ?? "";
        if (/^(serve|call)\d+$/.test(server)) counts[server] = Number(cells[total]);
      }
      return counts;
    },
    close: async () => {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Cluster {
  proxy: Proxy;
  serve: PlatformProcess[];
  call: PlatformProcess[];
  close(): Promise<void>;
}

/** `serveCount` serve and `callCount` call processes on `databaseUrl` (started at once), behind haproxy. */
export async function startCluster(options: {
  databaseUrl: string;
  serveCount: number;
  callCount?: number;
  env?: Record<string, string>;
  callEnv?: Record<string, string>;
}): Promise<Cluster> {
  const env = {
    DATABASE_URL: options.databaseUrl,
    PLATFORM_ENV: "production",
    PLATFORM_JWT_SECRET: CLUSTER_JWT_SECRET,
    // The balancer is the socket peer: only its X-Forwarded-For tells the client address the login limits count by.
    TRUST_PROXY: "loopback",
    ...options.env,
  };
  const started: PlatformProcess[] = [];
  const track = (starting: Promise<PlatformProcess>) =>
    starting.then((running) => {
      started.push(running);
      return running;
    });
  try {
    const serve = await Promise.all(
      Array.from({ length: options.serveCount }, () => track(startProcess("serve", env))),
    );
    const call = await Promise.all(
      Array.from({ length: options.callCount ?? 0 }, () => track(startProcess("call", { ...env, ...options.callEnv }))),
    );
    const proxy = await startHaproxy({ serve: serve.map((p) => p.port), call: call.map((p) => p.port) });
    return {
      proxy,
      serve,
      call,
      close: async () => {
        await proxy.close();
        await Promise.all(started.map(stopProcess));
      },
    };
  } catch (error) {
    await Promise.all(started.map(stopProcess));
    throw error;
  }
}

/** SIGKILL, and wait for the exit: a test's leftovers never outlive it. */
export async function stopProcess(running: PlatformProcess): Promise<void> {
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGKILL");
  await running.exited;
}
