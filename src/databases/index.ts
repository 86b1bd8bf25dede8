// The databases the store runs on, one kit each. A url's scheme picks its kit.
import type { Provider, ProviderKit } from '../engine/provider-kit.js';
import { mysql } from './mysql/index.js';
import { postgresql } from './postgresql/index.js';
import { sqlite } from './sqlite/index.js';

/** Every kit, by Prisma's provider name: a new provider does not type-check until it has one. */
export const KITS: Record<Provider, ProviderKit> = { sqlite, postgresql, mysql };

/** The kit whose scheme `url` starts with (`file:`, `postgresql:`, …), if any. */
export function kitOfUrl(url: string): ProviderKit | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
  return Object.values(KITS).find((kit) => scheme !== undefined && kit.schemes.includes(scheme));
}

export type { Provider, ProviderKit };
