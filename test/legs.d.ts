// The types of test/legs.js, a plain JavaScript module so that jest.config.js can import it.

/** A leg's group: its files (a folder ends in /), the files of those folders it leaves out, the backends they run on. */
export interface LegGroup {
  name: string;
  paths: string[];
  except?: string[];
  testBackends?: string;
}

export function chosenBackend(words: string | undefined, label: string): boolean;
export const OLDEST_NODE_LEG: LegGroup[];
export const QUICK_LEG: LegGroup[];
export const ALONE: string[];
export const SLOWEST_FIRST: string[];
export const ONE_LEG_ONLY: Record<string, { file: string; name: RegExp }[]>;
