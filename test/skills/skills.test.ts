import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";
import { requireTool, skipUnless } from "../helpers/system-tools.ts";
import { buildZip } from "../helpers/zip.ts";

const skillMd = (name: string, description = `How to ${name}`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps go here.\n`;
const sha256 = (content: Buffer | string) => createHash("sha256").update(content).digest("hex");
const ZIP = { "content-type": "application/zip" };

describe.each(testDialects)("skills (%s)", (dialect) => {
  let { t, ws, owner, admin, member, outsider, otherWs } = {} as WorkspaceFixture;
  const path = (suffix = "") => `workspaces/${ws}/skills${suffix}`;
  const create = (files: unknown[], token = member.token) => t.api.post(path(), { files }, { token });
  const upload = (zip: Buffer, token = member.token) =>
    t.api.post(path(), undefined, { token, raw: zip, headers: ZIP });
  /** Rows of every skill table: a refused request must leave them all as they were. */
  const stored = async () => ({
    skills: (await t.db.selectFrom("skills").select("id").execute()).length,
    files: (await t.db.selectFrom("skill_files").select("path").execute()).length,
  });

  beforeAll(async () => {
    ({ t, ws, owner, admin, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("creates a skill from JSON files: name and description from SKILL.md, each file's size and sha256", async () => {
    const script = "#!/bin/sh\necho release\n";
    const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]);
    const created = await create([
      { path: "SKILL.md", content: skillMd("release-notes", "Write release notes from done issues") },
      { path: "scripts/notes.sh", content: script },
      { path: "assets/logo.png", content: logo.toString("base64"), encoding: "base64" },
    ]);
    expect(created).toMatchObject({
      status: 201,
      body: {
        workspace_id: ws,
        name: "release-notes",
        description: "Write release notes from done issues",
        created_by: member.user.id,
      },
    });
    expect(created.body.files).toEqual([
      {
        path: "SKILL.md",
        size: Buffer.byteLength(skillMd("release-notes", "Write release notes from done issues")),
        sha256: sha256(skillMd("release-notes", "Write release notes from done issues")),
      },
      { path: "assets/logo.png", size: logo.length, sha256: sha256(logo) },
      { path: "scripts/notes.sh", size: script.length, sha256: sha256(script) },
    ]);
    expect((await t.api.get(path(`/${created.body.id}`), { token: outsider.token })).status).toBe(403);
    expect((await t.api.get(path(`/${created.body.id}`), { token: admin.token })).body).toEqual(created.body);

    const nested = await fetch(`${t.url}/api/v1/${path(`/${created.body.id}/files/scripts/notes.sh`)}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(nested.status).toBe(200);
    expect(nested.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await nested.text()).toBe(script);
    const binary = await fetch(`${t.url}/api/v1/${path(`/${created.body.id}/files/assets/logo.png`)}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(binary.headers.get("content-type")).toBe("application/octet-stream");
    expect(Buffer.from(await binary.arrayBuffer())).toEqual(logo);
    expect(await t.api.get(path(`/${created.body.id}/files/scripts/other.sh`), { token: owner.token })).toMatchObject({
      status: 404,
      body: { detail: "File not found" },
    });

    const logged = (await activityOf(t, ws)).find((row) => row.action === "skill.created");
    expect(logged).toMatchObject({ entity_type: "skill", entity_id: created.body.id, details: { files: 3 } });
  });

  it("creates a skill from a zip with SKILL.md inside one top-level folder, or at the root", async () => {
    const inFolder = await upload(
      buildZip([
        { name: "triage/", content: "" },
        { name: "triage/SKILL.md", content: skillMd("triage") },
        { name: "triage/reference/labels.md", content: "bug, feature\n", method: "store" },
        { name: "__MACOSX/triage/._SKILL.md", content: "resource fork" },
      ]),
    );
    expect(inFolder.status).toBe(201);
    expect(inFolder.body.files.map((file: { path: string }) => file.path)).toEqual(["SKILL.md", "reference/labels.md"]);
    const atRoot = await upload(buildZip([{ name: "SKILL.md", content: skillMd("at-root") }]));
    expect(atRoot).toMatchObject({ status: 201, body: { name: "at-root" } });
    const listed = await t.api.get(path(), { token: member.token });
    expect(listed.body.map((skill: { name: string }) => skill.name)).toEqual(
      [...listed.body.map((skill: { name: string }) => skill.name)].sort(),
    );
    expect(listed.body.map((skill: { name: string }) => skill.name)).toEqual(
      expect.arrayContaining(["at-root", "release-notes", "triage"]),
    );
  });

  it("reads a zip made by the zip tool", async () => {
    skipUnless(["zip"]);
    const dir = mkdtempSync(join(tmpdir(), "skill-zip-"));
    try {
      mkdirSync(join(dir, "deploy", "scripts"), { recursive: true });
      writeFileSync(join(dir, "deploy", "SKILL.md"), skillMd("deploy"));
      writeFileSync(join(dir, "deploy", "scripts", "go.sh"), "echo go\n".repeat(1000));
      execFileSync(requireTool("zip"), ["-qr", "deploy.zip", "deploy"], { cwd: dir });
      const created = await upload(readFileSync(join(dir, "deploy.zip")));
      expect(created).toMatchObject({ status: 201, body: { name: "deploy" } });
      expect(created.body.files).toContainEqual({
        path: "scripts/go.sh",
        size: 8000,
        sha256: sha256("echo go\n".repeat(1000)),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a zip bomb while unpacking it (422, nothing stored)", async () => {
    const before = await stored();
    const bomb = buildZip([
      { name: "SKILL.md", content: skillMd("bomb") },
      { name: "data.bin", content: Buffer.alloc(50 * 1024 * 1024) },
    ]);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const refused = await upload(bomb);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].msg).toMatch(/data\.bin.*5 MiB/);
    // The same bytes behind headers that claim a few: the count while inflating stops it, not the header.
    const lying = await upload(
      buildZip([
        { name: "SKILL.md", content: skillMd("liar") },
        { name: "small.txt", content: Buffer.alloc(50 * 1024 * 1024), claimedSize: 10 },
      ]),
    );
    expect(lying.status).toBe(422);
    expect(lying.body.detail[0].msg).toMatch(/small\.txt/);
    // Many entries, each under the cap, together over it.
    const many = buildZip([
      { name: "SKILL.md", content: skillMd("many") },
      ...Array.from({ length: 6 }, (_, index) => ({ name: `part-${index}.bin`, content: Buffer.alloc(1024 * 1024) })),
    ]);
    expect((await upload(many)).body.detail[0].msg).toMatch(/part-4\.bin.*5 MiB/);
    expect(await stored()).toEqual(before);
  });

  it("refuses zip entries that escape the folder, absolute paths, backslashes and symbolic links", async () => {
    const before = await stored();
    for (const [name, why] of [
      ["../evil.txt", /evil\.txt.*escapes/],
      ["skill/../../evil.txt", /escapes/],
      ["/etc/cron.d/evil", /absolute/],
      ["C:/evil.txt", /absolute/],
      ["..\\evil.txt", /backslash/],
    ] as const) {
      const refused = await upload(
        buildZip([
          { name: "SKILL.md", content: skillMd("escape") },
          { name, content: "x" },
        ]),
      );
      expect(refused.status, name).toBe(422);
      expect(refused.body.detail[0].msg, name).toMatch(why);
    }
    const link = await upload(
      buildZip([
        { name: "SKILL.md", content: skillMd("linked") },
        { name: "passwd", content: "/etc/passwd", symlink: true },
      ]),
    );
    expect(link.status).toBe(422);
    expect(link.body.detail[0].msg).toMatch(/passwd.*symbolic link/);
    expect(await stored()).toEqual(before);
  });

  it("refuses what is not a readable zip (422) and a zip over 5 MiB (413)", async () => {
    const before = await stored();
    expect((await upload(Buffer.from("this is not a zip"))).body.detail[0].msg).toMatch(/zip cannot be read/);
    const huge = await upload(Buffer.alloc(5 * 1024 * 1024 + 1));
    expect(huge).toMatchObject({ status: 413, body: { detail: "Zip too large (limit 5 MiB)" } });
    expect(await stored()).toEqual(before);
  });

  it("refuses a bad folder in JSON with 422 naming what is wrong, storing nothing", async () => {
    const before = await stored();
    const good = { path: "SKILL.md", content: skillMd("fine") };
    const cases: [unknown[], RegExp][] = [
      [[{ path: "README.md", content: "no skill here" }], /SKILL\.md is missing/],
      [[{ path: "SKILL.md", content: "# no front matter" }], /front matter/],
      [[{ path: "SKILL.md", content: skillMd("Bad_Name") }], /name: lower-case/],
      [[{ path: "SKILL.md", content: skillMd("x".repeat(65)) }], /at most 64/],
      [[{ path: "SKILL.md", content: skillMd("long", "d".repeat(1025)) }], /description/],
      [[{ path: "SKILL.md", content: "---\nname: [unclosed\n---\n" }], /not valid YAML/],
      [[good, { path: "../x.md", content: "x" }], /escapes the skill folder/],
      [[good, { path: "/abs.md", content: "x" }], /absolute/],
      [[good, { path: "a\\..\\b.md", content: "x" }], /backslash/],
      [[good, { path: "a//b.md", content: "x" }], /empty/],
      [[good, good], /appears twice/],
      [[good, { path: "x.bin", content: "not base64!", encoding: "base64" }], /base64/],
      [[good, ...Array.from({ length: 100 }, (_, index) => ({ path: `f${index}`, content: "x" }))], /100/],
    ];
    for (const [files, why] of cases) {
      const refused = await create(files);
      expect(refused.status, String(why)).toBe(422);
      expect(refused.body.detail[0].msg, String(why)).toMatch(why);
    }
    const located = await create([good, { path: "../x.md", content: "x" }]);
    expect(located.body.detail[0].loc).toEqual(["body", "files", 1, "path"]);
    expect((await create([])).status).toBe(422);
    expect((await t.api.post(path(), {}, { token: member.token })).status).toBe(422);
    expect(await stored()).toEqual(before);
  });

  it("names are unique in a workspace (409), not across workspaces", async () => {
    const first = await create([{ path: "SKILL.md", content: skillMd("unique-one") }]);
    expect(first.status).toBe(201);
    expect(await create([{ path: "SKILL.md", content: skillMd("unique-one") }], admin.token)).toMatchObject({
      status: 409,
      body: { detail: "A skill with this name already exists in this workspace" },
    });
    const elsewhere = await t.api.post(
      `workspaces/${otherWs}/skills`,
      { files: [{ path: "SKILL.md", content: skillMd("unique-one") }] },
      { token: outsider.token },
    );
    expect(elsewhere.status).toBe(201);
    const second = await create([{ path: "SKILL.md", content: skillMd("unique-two") }]);
    const rename = await t.api.put(
      path(`/${second.body.id}`),
      { files: [{ path: "SKILL.md", content: skillMd("unique-one") }] },
      { token: member.token },
    );
    expect(rename.status).toBe(409);
    expect((await t.api.get(path(`/${second.body.id}`), { token: member.token })).body.name).toBe("unique-two");
  });

  it("PUT replaces the files (and the name); the creator or an admin may, another member may not", async () => {
    const skill = (
      await create([
        { path: "SKILL.md", content: skillMd("replace-me") },
        { path: "old.txt", content: "old" },
      ])
    ).body;
    const other = await t.api.put(
      path(`/${skill.id}`),
      { files: [{ path: "SKILL.md", content: skillMd("hijacked") }] },
      { token: outsider.token },
    );
    expect(other.status).toBe(403);
    const byAnotherMember = await t.api.put(
      path(`/${skill.id}`),
      { files: [{ path: "SKILL.md", content: skillMd("hijacked") }] },
      { token: (await startOtherMember()).token },
    );
    expect(byAnotherMember).toMatchObject({
      status: 403,
      body: { detail: "Only an admin or the skill's creator can change this skill" },
    });
    const replaced = await t.api.put(
      path(`/${skill.id}`),
      {
        files: [
          { path: "SKILL.md", content: skillMd("replaced", "Now better") },
          { path: "new.txt", content: "new" },
        ],
      },
      { token: member.token },
    );
    expect(replaced).toMatchObject({
      status: 200,
      body: { id: skill.id, name: "replaced", description: "Now better" },
    });
    expect(replaced.body.files.map((file: { path: string }) => file.path)).toEqual(["SKILL.md", "new.txt"]);
    expect((await t.api.get(path(`/${skill.id}/files/old.txt`), { token: member.token })).status).toBe(404);
    const byZip = await t.api.put(path(`/${skill.id}`), undefined, {
      token: admin.token,
      raw: buildZip([{ name: "SKILL.md", content: skillMd("zipped-again") }]),
      headers: ZIP,
    });
    expect(byZip).toMatchObject({ status: 200, body: { name: "zipped-again" } });
    const refused = await t.api.put(
      path(`/${skill.id}`),
      {
        files: [
          { path: "SKILL.md", content: skillMd("broken") },
          { path: "../x", content: "x" },
        ],
      },
      { token: member.token },
    );
    expect(refused.status).toBe(422);
    const after = (await t.api.get(path(`/${skill.id}`), { token: member.token })).body;
    expect(after).toMatchObject({ name: "zipped-again", files: [{ path: "SKILL.md" }] });
    const updated = (await activityOf(t, ws)).filter((row) => row.action === "skill.updated");
    expect(updated.at(-1)?.details).toMatchObject({ changes: { name: { from: "replaced", to: "zipped-again" } } });
  });

  it("DELETE by the creator or an admin; another workspace's skill is 404", async () => {
    const skill = (await create([{ path: "SKILL.md", content: skillMd("delete-me") }])).body;
    expect((await t.api.delete(path(`/${skill.id}`), { token: (await startOtherMember()).token })).status).toBe(403);
    expect((await t.api.delete(path(`/${skill.id}`), { token: member.token })).status).toBe(204);
    expect(await t.api.get(path(`/${skill.id}`), { token: member.token })).toMatchObject({
      status: 404,
      body: { detail: "Skill not found" },
    });
    expect((await activityOf(t, ws)).some((row) => row.action === "skill.deleted")).toBe(true);

    const theirs = (
      await t.api.post(
        `workspaces/${otherWs}/skills`,
        { files: [{ path: "SKILL.md", content: skillMd("theirs") }] },
        { token: outsider.token },
      )
    ).body;
    for (const id of [theirs.id, unknownId(), "not-an-id"]) {
      expect((await t.api.get(path(`/${id}`), { token: owner.token })).status).toBe(404);
      expect((await t.api.get(path(`/${id}/files/SKILL.md`), { token: owner.token })).status).toBe(404);
      expect((await t.api.delete(path(`/${id}`), { token: owner.token })).status).toBe(404);
    }
  });

  /** A second plain member of the workspace, who created none of these skills. */
  async function startOtherMember() {
    const other = await registerUser(t.api, "other");
    await t.api.post(`workspaces/${ws}/members`, { user_id: other.user.id }, { token: owner.token });
    return other;
  }
});
