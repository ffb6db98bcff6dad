// The dashboard from the bin (not `npm start`): a checkout after `npm install`, and a packed package installed in
// a project, both answer `/` with the dashboard, no build step of their own; and `serve` says in its start-up log
// when the build is missing or older than its sources.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BinOptions, ROOT, startBin, stopBins } from "../helpers/bin.ts";

afterEach(stopBins);

interface LogLine {
  level: number;
  msg: string;
}
const WARN = 40;

/** `serve` started as a user would; its warnings, and what `/` and the page's script answer. */
async function serveAndOpen(options: BinOptions) {
  const server = await startBin("serve", [], options);
  const page = await fetch(`${server.url}/`);
  const html = await page.text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const scriptStatus = script ? (await fetch(`${server.url}${script}`)).status : undefined;
  const warnings = server
    .output()
    .stdout.split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.level === WARN)
    .map((line) => line.msg);
  server.child.kill("SIGINT");
  expect(await server.exited).toBe(0);
  return { status: page.status, html, scriptStatus, warnings };
}

const expectDashboard = (opened: Awaited<ReturnType<typeof serveAndOpen>>) => {
  expect(opened.status).toBe(200);
  expect(opened.html).toContain('<div id="root"></div>');
  expect(opened.scriptStatus).toBe(200);
  expect(opened.warnings).toEqual([]);
};

// Each case starts the bin (tsx compiling on the fly), the packed one packs and builds too.
describe("the dashboard from `agent-platform serve`", { timeout: 120_000 }, () => {
  it("a checkout after `npm install` serves it at /, from any working directory", async () => {
    expectDashboard(await serveAndOpen({}));
  });

  describe("a fresh clone, packed, installed in a project", () => {
    const work = mkdtempSync(join(tmpdir(), "agent-platform-packed-"));
    const clone = join(work, "clone");
    const installed = join(work, "project", "node_modules", "agent-platform");
    let packedFiles: string[] = [];

    beforeAll(() => {
      // The repository's files as a clone has them (no web/dist), with this checkout's dependencies.
      const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT })
        .toString()
        .split("\0")
        .filter((file) => file !== "" && !file.startsWith("node_modules/"));
      for (const file of files) {
        mkdirSync(dirname(join(clone, file)), { recursive: true });
        cpSync(join(ROOT, file), join(clone, file), { dereference: false });
      }
      symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
      // `npm pack` runs `prepare`, which builds the dashboard the clone does not have.
      execFileSync("npm", ["pack", "--pack-destination", work], { cwd: clone, stdio: "ignore" });
      const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"))!;
      packedFiles = execFileSync("tar", ["-tzf", join(work, tarball)])
        .toString()
        .trim()
        .split("\n");
      // What `npm install agent-platform` leaves: the package, its dependencies beside it in node_modules.
      mkdirSync(installed, { recursive: true });
      execFileSync("tar", ["-xzf", join(work, tarball), "-C", installed, "--strip-components=1"]);
      for (const dependency of readdirSync(join(ROOT, "node_modules"))) {
        symlinkSync(join(ROOT, "node_modules", dependency), join(work, "project", "node_modules", dependency));
      }
    }, 120_000);
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it("the package carries the built dashboard and not its sources", () => {
      expect(packedFiles).toContain("package/web/dist/index.html");
      expect(packedFiles.some((file) => file.startsWith("package/web/dist/assets/"))).toBe(true);
      expect(
        packedFiles.filter((file) => file.startsWith("package/web/") && !file.startsWith("package/web/dist/")),
      ).toEqual([]);
    });

    it("the installed package serves it at / with no build step", async () => {
      const project = join(work, "project");
      expectDashboard(await serveAndOpen({ bin: join(installed, "bin/agent-platform.js"), cwd: project }));
    });

    it("without its build, serve says so in one start-up line and / answers 503 saying how to build it", async () => {
      // The clone before any build: the sources are there, the build is not.
      rmSync(join(clone, "web", "dist"), { recursive: true, force: true });
      const opened = await serveAndOpen({ bin: join(clone, "bin/agent-platform.js") });
      expect(opened.status).toBe(503);
      expect(opened.html).toContain("npm run build:web");
      expect(opened.warnings).toEqual([
        `dashboard not built: / answers 503 until it is (run \`npm run build:web\` in ${clone} and restart)`,
      ]);
    });

    it("with sources newer than its build, serve says so in one start-up line", async () => {
      execFileSync(process.execPath, [join(clone, "node_modules/tsx/dist/cli.mjs"), "scripts/build-web.ts"], {
        cwd: clone,
        stdio: "ignore",
      });
      const later = new Date(Date.now() + 60_000);
      utimesSync(join(clone, "web", "src", "main.tsx"), later, later);
      const opened = await serveAndOpen({ bin: join(clone, "bin/agent-platform.js") });
      expect(opened.status).toBe(200);
      expect(opened.warnings).toEqual([
        `dashboard build is older than its sources in ${join(clone, "web")}: run \`npm run build:web\` in ${clone} and restart`,
      ]);
    });

    it("an installed package that lost its build says to reinstall it (it has no sources to build from)", async () => {
      rmSync(join(installed, "web", "dist"), { recursive: true, force: true });
      const opened = await serveAndOpen({ bin: join(installed, "bin/agent-platform.js"), cwd: join(work, "project") });
      expect(opened.status).toBe(503);
      expect(opened.warnings).toEqual([
        `dashboard missing from ${join(installed, "web", "dist")}: reinstall agent-platform`,
      ]);
    });
  });
});
