// Reads that tolerate a replica (session lists, JSONL exports, transcript pages)
// go to a hot standby that has replayed every write this store made, and that is
// at most maxLagMs behind the primary; otherwise to the primary. Both are told by
// positions in the database's log (see ReplicaPositions): the primary's is asked
// after this store's writes, and when the last answer is maxLagMs / 2 old; a
// replica's only when what it was last known to have replayed is not enough.
import type { Logger } from '@nestjs/common';
import type { Query, ReplicaPositions } from './provider-kit.js';
import { redactText } from '../values/redact.js';
import { StoreDatabaseError, StoreUnavailableError } from '../store.errors.js';

// Times are performance.now()'s, which the system clock's changes do not move: set back, Date.now() would stretch
// the lag bound and the rests by as much.

/** A replica that failed is not asked again for this long. */
const RESTING_MS = 5_000;
/** A replica that does not say its position within this long rests. */
const ANSWER_MS = 1_000;

/** A replica's server; `Db`, the store's database on it. */
export interface ReplicaServer<Db> {
  /** Its url, redacted, for the log. */
  name: string;
  db: Db;
  /** Statements on its pool. */
  query: Query;
}

interface Replica<Db> extends ReplicaServer<Db> {
  /** What it was last known to have replayed (0: not known). */
  replayed: bigint;
  /** It was found to hold the primary's database since it last rested. */
  same?: boolean;
  asking?: Promise<bigint>;
  restingUntil: number;
}

/** The primary's position, asked after `writes` of the store's writes had settled, at `at`. */
interface Written {
  writes: number;
  at: number;
  position: Promise<bigint>;
}

export class ReplicaReads<Db> {
  readonly #replicas: Replica<Db>[];
  /** The store's writes settled so far (a failed write too: it may have committed). */
  #writes = 0;
  #written?: Written;
  /** Which database the primary holds (see ReplicaPositions.identity), asked once. */
  #identity?: Promise<string>;
  /** Which replica a read asks first. */
  #turn = 0;
  #closing = false;

  constructor(
    private readonly primary: Query,
    replicas: ReplicaServer<Db>[],
    private readonly positions: ReplicaPositions,
    private readonly maxLagMs: number,
    private readonly logger: Logger,
  ) {
    this.#replicas = replicas.map((server) => ({ ...server, replayed: 0n, restingUntil: 0 }));
  }

  /** Says that the store closes its pools: a question or a read that fails from now on says nothing of its replica. */
  close(): void {
    this.#closing = true;
  }

  /** Says that a write of the store settled. */
  wrote(): void {
    this.#writes++;
  }

  /** The replica a read that tolerates one runs on now, the replicas taking turns; undefined: the primary. */
  async pick(): Promise<Replica<Db> | undefined> {
    const turn = this.#turn++ % this.#replicas.length;
    const inTurn = [...this.#replicas.slice(turn), ...this.#replicas.slice(0, turn)];
    const awake = inTurn.filter((replica) => performance.now() >= replica.restingUntil);
    if (awake.length === 0) return undefined;
    // When the primary cannot say where it is, neither can a replica be shown to have its writes: the read runs
    // on the primary, and fails there as any call would.
    const [required, identity] = await Promise.all([this.#required(), this.#primaryIdentity()]).catch(() => []);
    if (required === undefined) return undefined;
    for (const replica of awake) {
      if (replica.replayed >= required || (await this.#ask(replica, identity!)) >= required) return replica;
    }
    return undefined;
  }

  /**
   * `reading`, a read on `replica`, asking the replica every ANSWER_MS while it runs whether it still answers:
   * a read on a server that dropped off the network waits for TCP to give up, many minutes. One that does not
   * answer rests, and the read fails with StoreUnavailableError (to run again on the primary).
   */
  watched<T>(replica: Replica<Db>, reading: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const watch = () => {
        timer = setTimeout(async () => {
          if (await this.#answers(replica)) {
            if (!done) watch();
          } else reject(new StoreUnavailableError(`the database is unavailable: the replica ${replica.name} does not answer`));
        }, ANSWER_MS);
      };
      const settled = () => {
        done = true;
        clearTimeout(timer);
      };
      watch();
      reading.then(
        (value) => (settled(), resolve(value)),
        (error: unknown) => (settled(), reject(error)),
      );
    });
  }

  /** Whether `replica` says its position now (whether the primary's database is still known to be its own: see #ask). */
  async #answers(replica: Replica<Db>): Promise<boolean> {
    const identity = await this.#primaryIdentity().catch(() => undefined);
    return identity === undefined || (await this.#ask(replica, identity)) >= 0n;
  }

  /**
   * A read failed on `replica` (it runs again on the primary). A failure of the database there rests it: one
   * that cannot be reached, a login without the privileges the primary's has, conflicts with its replay; each
   * read would otherwise fail there first. A failure of the request (a session or a cursor it lacks yet) does not.
   */
  failed(replica: Replica<Db>, error: unknown): void {
    if (error instanceof StoreDatabaseError) this.#rest(replica, error.message);
  }

  /**
   * The position a replica must have replayed: the primary's, asked after every settled write of the store's
   * and at most maxLagMs / 2 ago, so that a replica which has it lags by less than maxLagMs.
   */
  async #required(): Promise<bigint> {
    const now = performance.now();
    const written = this.#written;
    if (!written || written.writes !== this.#writes || now - written.at > this.maxLagMs / 2) this.#askPrimary(now);
    return this.#written!.position;
  }

  #primaryIdentity(): Promise<string> {
    const identity = (this.#identity ??= this.positions.identity(this.primary));
    identity.catch(() => {
      if (this.#identity === identity) this.#identity = undefined;
    });
    return identity;
  }

  #askPrimary(at: number): void {
    const position = this.positions.written(this.primary);
    const written: Written = { writes: this.#writes, at, position };
    this.#written = written;
    position.catch(() => {
      // Asked again by the next read, not after maxLagMs / 2.
      if (this.#written === written) this.#written = undefined;
    });
  }

  /**
   * What `replica` has replayed, asked now (once for the reads waiting on it); -1 when it cannot say, or holds
   * another database than the primary's `identity`: it rests.
   */
  #ask(replica: Replica<Db>, identity: string): Promise<bigint> {
    replica.asking ??= within(ANSWER_MS, this.#replayedOn(replica, identity)).then(
      (replayed) => {
        replica.asking = undefined;
        if (typeof replayed === 'string') return this.#rest(replica, replayed);
        if (replica.restingUntil > 0) this.logger.log(`replica ${replica.name} takes reads again`);
        replica.restingUntil = 0;
        return (replica.replayed = replayed);
      },
      (error: unknown) => {
        replica.asking = undefined;
        return this.#rest(replica, redactText(String((error as Error)?.message ?? error)));
      },
    );
    return replica.asking;
  }

  /** What `replica` has replayed, or why it takes no reads. */
  async #replayedOn(replica: Replica<Db>, identity: string): Promise<bigint | string> {
    if (!replica.same) {
      // Checked again after each rest: the name may lead to another server by then.
      const its = await this.positions.identity(replica.query);
      if (its !== identity) return `it is a standby of another database: it holds the ${its}, the primary the ${identity}`;
      replica.same = true;
    }
    return (await this.positions.replayed(replica.query)) ?? 'it is not in recovery (a primary, or a promoted standby)';
  }

  #rest(replica: Replica<Db>, why: string): bigint {
    // Said once when it stops taking reads, not at every retry while it is down.
    if (replica.restingUntil === 0 && !this.#closing)
      this.logger.warn(`replica ${replica.name} takes no reads (asked again every ${RESTING_MS / 1000} s): ${why}`);
    replica.restingUntil = performance.now() + RESTING_MS;
    // A standby restarted, or cloned again, may replay from further back.
    replica.replayed = 0n;
    replica.same = false;
    return -1n;
  }
}

/** `promise`, or a rejection after `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
