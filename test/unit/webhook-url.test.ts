import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "../../src/domain/webhook-url";

const production = { allowLocal: false };
const dev = { allowLocal: true };

describe("webhook URLs", () => {
  it("accept a public https address", () => {
    expect(webhookUrlProblem("https://hooks.example.com/unified-memory?x=1", production)).toBeNull();
    expect(webhookUrlProblem("https://93.184.215.14:8443/hook", production)).toBeNull();
    expect(webhookUrlProblem("https://[2606:4700::6810:84e5]/hook", production)).toBeNull();
  });

  it("refuse plain http, other schemes and credentials in production", () => {
    expect(webhookUrlProblem("http://hooks.example.com/", production)).toBe("must use https://");
    expect(webhookUrlProblem("ftp://hooks.example.com/", production)).toBe("must use https://");
    expect(webhookUrlProblem("https://user:pw@hooks.example.com/", production)).toBe(
      "must not carry credentials",
    );
    expect(webhookUrlProblem("/relative", production)).toBe("must be an absolute URL");
    expect(webhookUrlProblem(`https://example.com/${"a".repeat(3000)}`, production)).toMatch(/at most/);
  });

  it.each([
    "https://127.0.0.1/",
    "https://2130706433/", // 127.0.0.1 as one number
    "https://0x7f.0.0.1/",
    "https://0177.0.0.1/",
    "https://10.1.2.3/",
    "https://172.31.255.255/",
    "https://192.168.0.10/",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/",
    "https://0.0.0.0/",
    "https://224.0.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://[fd00:ec2::254]/",
    "https://[fe80::1]/",
    "https://[2002:a00:1::]/",
  ])("refuse the private, loopback, link-local or metadata address %s", (url) => {
    expect(webhookUrlProblem(url, production)).toBe("must not be a private, loopback or reserved address");
  });

  it.each([
    "https://localhost/",
    "https://api.localhost/",
    "https://metadata.google.internal/",
    "https://printer.local/",
    "https://intranet/",
  ])("refuse the internal host name %s", (url) => {
    expect(webhookUrlProblem(url, production)).toBe("must be a public host name");
  });

  it("let http loopback receivers through only when local receivers are allowed", () => {
    for (const url of ["http://127.0.0.1:9000/hook", "http://localhost:9000/", "http://[::1]:9000/"]) {
      expect(webhookUrlProblem(url, dev)).toBeNull();
      expect(webhookUrlProblem(url, production)).not.toBeNull();
    }
    expect(webhookUrlProblem("http://10.0.0.1/", dev)).toBe("must use https://");
    expect(webhookUrlProblem("https://10.0.0.1/", dev)).toBe(
      "must not be a private, loopback or reserved address",
    );
  });
});
