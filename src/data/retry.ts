// Bounded, jittered retries of transient conflicts.
import { isTransient, toStoreError } from './db-errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 5, maxDelayMs: 500 };

export async function withRetries<T>(work: () => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isTransient(error)) throw toStoreError(error);
      if (attempt >= policy.attempts) throw toStoreError(error, true);
      // Full jitter: conflicting writers spread out instead of colliding again.
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}
