// Every error the stores throw is a StoreError: callers catch by class.

export class StoreError extends Error {
  override name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Bad input. Nothing was written. */
export class StoreValidationError extends StoreError {
  override name = 'StoreValidationError';
}

/** The thread or session does not exist (or was deleted). */
export class StoreNotFoundError extends StoreError {
  override name = 'StoreNotFoundError';
}

/** The write contradicts what is stored (a duplicate id, a second parent, a cycle). Nothing was written. */
export class StoreConflictError extends StoreError {
  override name = 'StoreConflictError';
}

/** The module's options are wrong, or the database of the caller's own client lacks the store's tables; the message says what to do. */
export class StoreConfigurationError extends StoreError {
  override name = 'StoreConfigurationError';
}

/** The database failed. `cause` holds the driver's or Prisma's error. */
export class StoreDatabaseError extends StoreError {
  override name = 'StoreDatabaseError';
}

/** The database cannot be reached, refuses the store (its login, or the database), or no connection came free in time. */
export class StoreUnavailableError extends StoreDatabaseError {
  override name = 'StoreUnavailableError';
}

/** A transient conflict (lock timeout, deadlock, serialization failure, SQLite busy) outlasted the retries. */
export class StoreBusyError extends StoreDatabaseError {
  override name = 'StoreBusyError';
}
