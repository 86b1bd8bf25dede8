// Timing: wall-clock time of awaited work, and the median of repeated reads.

export async function elapsedMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export interface Repeats {
  /** At least this many calls… */
  repeats: number;
  /** …and for at least this long… */
  minMs: number;
  /** …unless the calls have taken this long already (a slow target gets fewer samples). */
  maxMs: number;
}

/** The median duration in ms of repeated calls, the first of which is `first` (already made). */
export async function medianMs(call: () => Promise<unknown>, first: number, { repeats, minMs, maxMs }: Repeats): Promise<number> {
  const times = [first];
  let spent = first;
  while ((times.length < repeats || spent < minMs) && spent < maxMs) {
    const time = await elapsedMs(call);
    times.push(time);
    spent += time;
  }
  return median(times);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
