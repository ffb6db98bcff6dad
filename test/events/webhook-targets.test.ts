import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolvedAddress } from "../../src/http/targets.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";
import { WebhookReceiver } from "./receiver.ts";

/** A name server the test controls: each name answers what the test last set, and every question is counted. */
class TestDns {
  readonly answers = new Map<string, string[] | (() => string[])>();
  readonly asked: string[] = [];
  resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    this.asked.push(hostname);
    const answer = this.answers.get(hostname);
    const addresses = typeof answer === "function" ? answer() : (answer ?? []);
    return addresses.map((address) => ({ address, family: net.isIP(address) === 6 ? 6 : 4 }));
  };
}

const PUBLIC = "93.184.216.34";

describe.each(testDialects)("webhook targets, private addresses refused (%s)", (dialect) => {
  let t: TestApp;
  const dns = new TestDns();
  let token: string;
  let ws: string;
  const create = (url: string, enabled = true) => t.api.post(`workspaces/${ws}/webhooks`, { url, enabled }, { token });

  beforeAll(async () => {
    t = await startTestApp(dialect, {
      events: { webhooks: { resolve: dns.resolve, retryDelaysMs: [60_000], timeoutMs: 500, sweepMs: 100 } },
    });
    ({ token } = await registerUser(t.api, "strict"));
    ws = (await t.api.post("workspaces/", { name: "Strict" }, { token })).body.id;
  });
  afterAll(() => t.close());

  it("only https, and no private, loopback, link-local or unique-local address, literal or resolved", async () => {
    dns.answers.set("metadata.test", ["169.254.169.254"]);
    dns.answers.set("intranet.test", ["10.1.2.3"]);
    dns.answers.set("mixed.test", [PUBLIC, "127.0.0.1"]);
    dns.answers.set("v6-local.test", ["fd12:3456::1"]);
    dns.answers.set("public.test", [PUBLIC, "2606:2800:220:1:248:1893:25c8:1946"]);
    const refusals: [string, string][] = [
      ["http://public.test/hook", "Webhook URL must use https"],
      ["https://127.0.0.1/hook", "Webhook host 127.0.0.1 resolves to a private, loopback or link-local address"],
      ["https://[::1]:8443/hook", "Webhook host ::1 resolves to a private, loopback or link-local address"],
      [
        "https://[::ffff:127.0.0.1]/hook",
        "Webhook host ::ffff:7f00:1 resolves to a private, loopback or link-local address",
      ],
      ["https://192.168.1.10/hook", "Webhook host 192.168.1.10 resolves to a private, loopback or link-local address"],
      [
        "https://metadata.test/latest",
        "Webhook host metadata.test resolves to a private, loopback or link-local address",
      ],
      [
        "https://intranet.test/hook",
        "Webhook host intranet.test resolves to a private, loopback or link-local address",
      ],
      ["https://mixed.test/hook", "Webhook host mixed.test resolves to a private, loopback or link-local address"],
      [
        "https://v6-local.test/hook",
        "Webhook host v6-local.test resolves to a private, loopback or link-local address",
      ],
      ["https://nowhere.test/hook", "Webhook host nowhere.test does not resolve"],
    ];
    for (const [url, message] of refusals) {
      const response = await create(url);
      expect(response.status, url).toBe(422);
      expect(response.body.detail).toEqual([{ type: "value_error", loc: ["body", "url"], msg: message }]);
    }
    // Disabled: nothing is sent to the real address behind the name.
    const accepted = await create("https://public.test/hook", false);
    expect(accepted.status).toBe(201);
    const moved = await t.api.patch(
      `workspaces/${ws}/webhooks/${accepted.body.id}`,
      { url: "https://10.0.0.1/" },
      { token },
    );
    expect(moved.status).toBe(422);
    expect((await t.api.get(`workspaces/${ws}/webhooks`, { token })).body.map((hook: any) => hook.url)).toEqual([
      "https://public.test/hook",
    ]);
    await t.api.delete(`workspaces/${ws}/webhooks/${accepted.body.id}`, { token });
  });

  it("no IPv6 spelling of a private IPv4 address gets through, literal or resolved; public ones do", async () => {
    const privateSpellings = [
      "::127.0.0.1", // IPv4-compatible (deprecated)
      "::7f00:1",
      "::ffff:127.0.0.1", // IPv4-mapped
      "0:0:0:0:0:ffff:a9fe:a9fe", // mapped, written out: 169.254.169.254
      "::ffff:0:10.0.0.1", // IPv4-translated
      "64:ff9b::10.0.0.1", // NAT64
      "64:ff9b::192.168.1.1",
      "64:ff9b:1::a00:1", // local-use NAT64
      "2002:7f00:1::", // 6to4 of 127.0.0.1
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
      "::", // unspecified
      "fe80::1", // link-local
      "ff02::1", // multicast
      "5f00::1", // outside global unicast
      "3fff::1", // documentation
    ];
    for (const address of privateSpellings) {
      const literal = await create(`https://[${address}]/hook`);
      expect(literal.status, address).toBe(422);
      expect(literal.body.detail[0].msg, address).toMatch(/resolves to a private, loopback or link-local address$/);
      dns.answers.set("aaaa.test", [address]);
      const resolved = await create("https://aaaa.test/hook");
      expect(resolved.status, `aaaa.test -> ${address}`).toBe(422);
      expect(resolved.body.detail[0].msg).toBe(
        "Webhook host aaaa.test resolves to a private, loopback or link-local address",
      );
    }
    // Where connecting does reach a public IPv4 host (DNS64 answers such NAT64 addresses), or a global IPv6 one.
    const publicSpellings = ["::ffff:93.184.216.34", "64:ff9b::93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"];
    const accepted: string[] = [];
    for (const address of publicSpellings) {
      const response = await create(`https://[${address}]/hook`, false);
      expect(response.status, address).toBe(201);
      accepted.push(response.body.id);
    }
    for (const id of accepted) await t.api.delete(`workspaces/${ws}/webhooks/${id}`, { token });
  });

  it("a name that resolves to a private address by delivery time is refused then, and nothing connects", async () => {
    const connections: net.Socket[] = [];
    const trap = net.createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
    const port = (trap.address() as net.AddressInfo).port;
    try {
      dns.answers.set("rebind.test", [PUBLIC]);
      const hook = (await create(`https://rebind.test:${port}/hook`)).body;
      dns.answers.set("rebind.test", ["127.0.0.1"]);
      await createIssue(t.api, ws, token);
      const failed = await eventually(async () => {
        const rows = (await t.api.get(`workspaces/${ws}/webhooks/${hook.id}/deliveries`, { token })).body;
        return Array.isArray(rows) && rows.find((row: any) => row.status === "failed");
      });
      expect(failed).toMatchObject({
        attempt: 1,
        response_status: null,
        error: "Refused: Webhook host rebind.test resolves to a private, loopback or link-local address",
      });
      expect(connections).toEqual([]);
    } finally {
      trap.close();
    }
  });
});

describe.each(testDialects)("webhook targets with WEBHOOK_ALLOW_PRIVATE (%s)", (dialect) => {
  let t: TestApp;
  const dns = new TestDns();

  beforeAll(async () => {
    t = await startTestApp(dialect, {
      env: { WEBHOOK_ALLOW_PRIVATE: "true" },
      events: { webhooks: { resolve: dns.resolve, retryDelaysMs: [100], timeoutMs: 1_000, sweepMs: 100 } },
    });
  });
  afterAll(() => t.close());

  it("plain http to loopback works, and each attempt connects to the address it checked, resolving once", async () => {
    const first = await WebhookReceiver.start("127.0.0.1");
    // The same port on another loopback address: where a second lookup at connect time would lead.
    const second = await WebhookReceiver.start("127.0.0.2", first.port).catch(() => undefined);
    try {
      const { token } = await registerUser(t.api, "open");
      const ws = (await t.api.post("workspaces/", { name: "Open" }, { token })).body.id;
      let answers = 0;
      dns.answers.set("flip.test", () => (answers++ % 2 === 0 ? ["127.0.0.1"] : ["127.0.0.2"]));
      // Create: 127.0.0.1. The attempt's check: 127.0.0.2. Any further lookup would say 127.0.0.1 again.
      const hook = (
        await t.api.post(
          `workspaces/${ws}/webhooks`,
          { url: `http://flip.test:${first.port}/in`, types: ["webhook.created"] },
          { token },
        )
      ).body;
      expect(hook.url).toBe(`http://flip.test:${first.port}/in`);
      if (second) {
        await eventually(() => second.to("/in").length === 1, "the attempt at the checked address");
        expect(first.to("/in")).toEqual([]);
      } else {
        await eventually(() => first.to("/in").length === 1);
      }
      expect(dns.asked.filter((name) => name === "flip.test")).toHaveLength(2);
      const direct = await WebhookReceiver.start();
      await t.api.post(
        `workspaces/${ws}/webhooks`,
        { url: `${direct.url}/plain`, types: ["label.created"] },
        { token },
      );
      await t.api.post(`workspaces/${ws}/labels`, { name: "heard" }, { token });
      await eventually(() => direct.to("/plain").length === 1);
      await direct.close();
    } finally {
      await first.close();
      await second?.close();
    }
  });
});
