// OpenAIAgentsSessions: the provider an agent service injects beside
// StoreModule, handing out the SDK's Session for a session id.
import { Inject, Injectable } from '@nestjs/common';
import { StoreDatabase } from '../../data/database.js';
import { ItemLog } from '../../data/item-log.js';
import { idOf } from '../../validation.js';
import { StoreAgentSession } from './store-session.js';

/** The prefix of the entries' kinds in the session's log: `openai-agents.item` and its kin. */
export const OPENAI_AGENTS_KIND = 'openai-agents';

@Injectable()
export class OpenAIAgentsSessions {
  #db: StoreDatabase;
  #tenantId?: string;
  #log: ItemLog;

  constructor(@Inject(StoreDatabase) db: StoreDatabase) {
    this.#db = db;
    this.#log = new ItemLog(db, OPENAI_AGENTS_KIND);
  }

  /** The SDK's Session for `sessionId`, created on its first write. */
  forSession(sessionId: string): StoreAgentSession {
    return new StoreAgentSession(this.#log, idOf(sessionId, 'sessionId'));
  }

  /** The same, seeing only `tenantId`'s sessions and creating new ones in it. */
  forTenant(tenantId: string): OpenAIAgentsSessions {
    return OpenAIAgentsSessions.#on(this.#db, idOf(tenantId, 'tenantId'));
  }

  /** The same, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): OpenAIAgentsSessions {
    return OpenAIAgentsSessions.#on(this.#db.joining(tx), this.#tenantId);
  }

  static #on(db: StoreDatabase, tenantId: string | undefined): OpenAIAgentsSessions {
    const sessions = new OpenAIAgentsSessions(db);
    sessions.#tenantId = tenantId;
    sessions.#log = new ItemLog(db, OPENAI_AGENTS_KIND, tenantId);
    return sessions;
  }
}
