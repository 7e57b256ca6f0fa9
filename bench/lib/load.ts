/** A closed-loop load generator: `concurrency` workers issue `total` requests, each timed. */
export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<number, number>;
  wallMs: number;
}

export async function runLoad(options: {
  total: number;
  concurrency: number;
  request: (i: number) => Promise<Response>;
}): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < options.total) {
      const i = next++;
      const t0 = performance.now();
      const res = await options.request(i);
      await res.arrayBuffer();
      latenciesMs.push(performance.now() - t0);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { latenciesMs, statuses, wallMs: performance.now() - started };
}
