/**
 * Which URLs a webhook may be delivered to. The service calls them from inside the platform, so a URL
 * must not reach the platform's own neighbours: `https://` only, no credentials, no IP literal in a
 * private, loopback, link-local, shared, reserved or metadata range, no single-label or internal names.
 * The WHATWG parser has already turned `http://2130706433/` and `http://0x7f.1/` into `127.0.0.1`, so the
 * range checks see every spelling of an address. With `allowLocal` (dev and tests) `http://127.0.0.1`,
 * `http://localhost` and `http://[::1]` receivers are accepted as well.
 */

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export interface WebhookUrlPolicy {
  allowLocal: boolean;
}

/** The reason a URL is refused (a sentence to follow "url "), or null when deliveries may go there. */
export function webhookUrlProblem(raw: string, policy: WebhookUrlPolicy): string | null {
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) return `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  const host = url.hostname.toLowerCase();
  if (policy.allowLocal && isLoopbackHost(host) && (url.protocol === "http:" || url.protocol === "https:")) {
    return null;
  }
  if (url.protocol !== "https:") return "must use https://";
  const ipv4 = parseIpv4(host);
  if (ipv4) return ipv4Refused(ipv4) ? "must not be a private, loopback or reserved address" : null;
  if (host.startsWith("[")) {
    const ipv6 = parseIpv6(host.slice(1, -1));
    if (!ipv6 || ipv6Refused(ipv6)) return "must not be a private, loopback or reserved address";
    return null;
  }
  if (!host.includes(".") || INTERNAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) {
    return "must be a public host name";
  }
  return null;
}

const INTERNAL_SUFFIXES = ["localhost", "local", "internal", "intranet", "home.arpa", "lan"];

function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host === "[::1]") return true;
  const ipv4 = parseIpv4(host);
  return ipv4 !== null && ipv4[0] === 127;
}

/** [a, b, c, d] for a dotted quad (the parser's canonical form), else null. */
function parseIpv4(host: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return null;
  const parts = match.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** Every range that is not the public internet (IANA special-purpose registry, IPv4). */
const IPV4_REFUSED: [number, number, number, number, number][] = [
  [0, 0, 0, 0, 8],
  [10, 0, 0, 0, 8],
  [100, 64, 0, 0, 10],
  [127, 0, 0, 0, 8],
  [169, 254, 0, 0, 16],
  [172, 16, 0, 0, 12],
  [192, 0, 0, 0, 24],
  [192, 0, 2, 0, 24],
  [192, 88, 99, 0, 24],
  [192, 168, 0, 0, 16],
  [198, 18, 0, 0, 15],
  [198, 51, 100, 0, 24],
  [203, 0, 113, 0, 24],
  [224, 0, 0, 0, 4],
  [240, 0, 0, 0, 4],
];

function ipv4Refused(parts: number[]): boolean {
  const value = ipv4Value(parts);
  return IPV4_REFUSED.some(([a, b, c, d, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (value & mask) >>> 0 === (ipv4Value([a, b, c, d]) & mask) >>> 0;
  });
}

function ipv4Value([a = 0, b = 0, c = 0, d = 0]: number[]): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Eight 16-bit groups of an IPv6 literal (compressed or with an embedded IPv4 tail), else null. */
function parseIpv6(text: string): number[] | null {
  const lastColon = text.lastIndexOf(":");
  const ipv4Tail = parseIpv4(text.slice(lastColon + 1));
  const body = ipv4Tail
    ? `${text.slice(0, lastColon + 1)}${((ipv4Value(ipv4Tail) >>> 16) & 0xffff).toString(16)}:${(ipv4Value(ipv4Tail) & 0xffff).toString(16)}`
    : text;
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string | undefined) =>
    half ? half.split(":").map((g) => Number.parseInt(g, 16)) : [];
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

function ipv6Refused(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embeddedV4 = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0 || g5 === 0xffff) return g5 === 0xffff ? ipv4Refused(embeddedV4) : true; // ::, ::1, ::a.b.c.d
  }
  if (g0 === 0x64 && g1 === 0xff9b) return ipv4Refused(embeddedV4); // NAT64
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local (cloud metadata fd00:ec2::254 among them)
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard
  if (g0 === 0x2002) return ipv4Refused([g1 >> 8, g1 & 0xff, g2 >> 8, g2 & 0xff]); // 6to4
  return g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0; // anything else in ::/64
}
