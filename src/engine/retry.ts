// Bounded, jittered retries of transient conflicts.
import type { ProviderKit, RetryPolicy } from './provider-kit.js';
import { isTransient, toStoreError } from './db-errors.js';

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 5, maxDelayMs: 500 };

/**
 * Runs `work` until it succeeds or fails for good; every failure leaves as a
 * StoreError, read by `kit`. The first attempt adds no await of its own: most
 * calls succeed at once, and an append is tens of microseconds.
 */
export function withRetries<T>(work: () => Promise<T>, kit: ProviderKit, policy: RetryPolicy = DEFAULT_RETRY): Promise<T> {
  return attempt(work).catch((error: unknown) => retry(work, kit, policy, error));
}

async function retry<T>(work: () => Promise<T>, kit: ProviderKit, policy: RetryPolicy, firstError: unknown): Promise<T> {
  let error = firstError;
  for (let attempts = 1; ; attempts++) {
    if (!isTransient(error, kit)) throw toStoreError(error, kit);
    const { attempts: most, baseDelayMs, maxDelayMs } = policy.only && !policy.only(error) ? DEFAULT_RETRY : policy;
    if (attempts >= most) throw toStoreError(error, kit, true);
    // Full jitter: conflicting writers spread out instead of colliding again.
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempts - 1));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    try {
      return await work();
    } catch (failure) {
      error = failure;
    }
  }
}

/** `work()`, with a synchronous throw as a rejection. */
function attempt<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}
