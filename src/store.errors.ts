// Every error the stores throw is a StoreError: callers catch by class.

/**
 * The base class of every error the stores throw: catch them by class. `cause`, when set, is the error
 * underneath (the driver's, Prisma's, a callback's).
 */
export class StoreError extends Error {
  /** The class's name, `'StoreError'`. */
  override name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Bad input. Nothing was written. */
export class StoreValidationError extends StoreError {
  /** The class's name, `'StoreValidationError'`. */
  override name = 'StoreValidationError';
}

/** The thread or session does not exist (or was deleted). */
export class StoreNotFoundError extends StoreError {
  /** The class's name, `'StoreNotFoundError'`. */
  override name = 'StoreNotFoundError';
}

/** The write contradicts what is stored (a duplicate id, a second parent, a cycle). Nothing was written. */
export class StoreConflictError extends StoreError {
  /** The class's name, `'StoreConflictError'`. */
  override name = 'StoreConflictError';
}

/** The module's options are wrong, or the database of the caller's own client lacks the store's tables; the message says what to do. */
export class StoreConfigurationError extends StoreError {
  /** The class's name, `'StoreConfigurationError'`. */
  override name = 'StoreConfigurationError';
}

/** The database failed. `cause` holds the driver's or Prisma's error. */
export class StoreDatabaseError extends StoreError {
  /** The class's name, `'StoreDatabaseError'`. */
  override name = 'StoreDatabaseError';
}

/** The database cannot be reached, refuses the store (its login, or the database), or no connection came free in time. */
export class StoreUnavailableError extends StoreDatabaseError {
  /** The class's name, `'StoreUnavailableError'`. */
  override name = 'StoreUnavailableError';
}

/** A transient conflict (lock timeout, deadlock, serialization failure, SQLite busy) outlasted the retries. */
export class StoreBusyError extends StoreDatabaseError {
  /** The class's name, `'StoreBusyError'`. */
  override name = 'StoreBusyError';
}
