/**
 * The instants the service stores and compares: years 1 to 9999 (UTC). Postgres keeps a wider range, but
 * JavaScript prints years outside 0001-9999 as `0000` or `+010000`, which Postgres refuses.
 */
const EARLIEST = new Date("0001-01-01T00:00:00Z").getTime();
const LATEST = new Date("9999-12-31T23:59:59.999Z").getTime();

export const STORABLE_RANGE = "between 0001-01-01 and 9999-12-31 (UTC)";

export function isStorableInstant(date: Date): boolean {
  const t = date.getTime();
  return Number.isFinite(t) && t >= EARLIEST && t <= LATEST;
}
