/**
 * Every string an audit event carries is text the table can hold before the event is queued: a client's
 * name with a NUL, or cut inside an emoji, becomes well-formed bounded text.
 */
import { describe, expect, it } from "vitest";
import { eventOf } from "../../src/app/audit";
import { safeAuditText, userAgentProduct } from "../../src/domain/audit";
import { textProblem } from "../../src/domain/safe-text";

const origin = (client: string | null, userId = "ada") => ({
  caller: { userId, workspaceId: "default", subjectKey: `default:user:${userId}`, scopes: new Set<never>() },
  channel: "mcp" as const,
  client,
  requestId: "req-1",
  status: 200,
});

const entry = {
  id: crypto.randomUUID(),
  at: new Date("2026-12-01T10:00:00Z"),
  action: "memory.read" as const,
  subjectKey: "default:user:ada",
  version: null,
  itemIds: [],
  queryHash: null,
};

describe("audit text", () => {
  it("replaces NUL and lone surrogates and cuts at a code point, within the bound", () => {
    expect(safeAuditText("evil\u0000agent/1.0", 200)).toBe("evil\uFFFDagent/1.0");
    expect(safeAuditText("a\ud800b", 200)).toBe("a\uFFFDb");
    expect(safeAuditText(`${"x".repeat(199)}😀`, 200)).toBe("x".repeat(199));
    expect(safeAuditText("😀😀", 3)).toBe("😀");
    expect(safeAuditText("short", 200)).toBe("short");
  });

  it("an event's client, names and request id are made safe before the event is queued", () => {
    const cases = [`evil\u0000client/1.0`, `${"x".repeat(199)}😀/1.0`, `${"y".repeat(250)}`, "bad\udc00/2"];
    for (const client of cases) {
      const event = eventOf(entry, origin(client));
      expect(event.client).not.toBeNull();
      expect(textProblem(event.client!)).toBeNull();
      expect(event.client!.length).toBeLessThanOrEqual(200);
    }
    expect(eventOf(entry, origin("evil\u0000client/1.0")).client).toBe("evil\uFFFDclient/1.0");
    expect(eventOf(entry, origin(`${"x".repeat(199)}😀/1.0`)).client).toBe("x".repeat(199));
    expect(eventOf(entry, origin(null)).client).toBeNull();
  });

  it("a User-Agent's product is safe text of at most 100 units", () => {
    expect(userAgentProduct(`${"z".repeat(99)}😀 (linux)`)).toBe("z".repeat(99));
    expect(userAgentProduct("curl\u0000/8 (x)")).toBe("curl\uFFFD/8");
    expect(userAgentProduct("  ")).toBeNull();
  });

  it("a browser's User-Agent names the browser and its major version, not Mozilla/5.0", () => {
    const chrome =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    expect(userAgentProduct(chrome)).toBe("Chrome/131");
    expect(userAgentProduct(chrome.replace("Chrome/", "HeadlessChrome/"))).toBe("HeadlessChrome/131");
    expect(userAgentProduct(`${chrome} Edg/131.0.2903.86`)).toBe("Edge/131");
    expect(userAgentProduct("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
      "Firefox/133",
    );
    expect(
      userAgentProduct(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      ),
    ).toBe("Safari/18");
    expect(userAgentProduct("Mozilla/5.0 (compatible; SomeBot)")).toBe("Mozilla/5.0");
  });
});
