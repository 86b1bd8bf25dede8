// The url check of the server databases: a url the connector can parse, with a host.
import { redactUrl } from '../values/redact.js';
import { StoreConfigurationError } from '../store.errors.js';

/** A checkUrl that refuses a url without a host, showing `example` as what to pass. */
export const requireHost =
  (example: string) =>
  (url: string): void => {
    let host = '';
    try {
      host = new URL(url).hostname;
    } catch {
      // reported below
    }
    if (!host) throw new StoreConfigurationError(`StoreModule cannot parse "${redactUrl(url)}": expected ${example}`);
  };
