// Bounded, jittered retries of transient conflicts.
import type { ProviderKit } from '../databases/provider-kit.js';
import { isTransient, toStoreError } from './db-errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 5, maxDelayMs: 500 };

/** Runs `work` until it succeeds or fails for good; every failure leaves as a StoreError, read by `kit`. */
export async function withRetries<T>(work: () => Promise<T>, kit: ProviderKit, policy: RetryPolicy = DEFAULT_RETRY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isTransient(error, kit)) throw toStoreError(error, kit);
      if (attempt >= policy.attempts) throw toStoreError(error, kit, true);
      // Full jitter: conflicting writers spread out instead of colliding again.
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}
