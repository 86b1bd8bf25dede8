// TenantStores over the Prisma schema: the same store classes, given a tenant.
import { PrismaChatStore } from './chat-store.service.js';
import { StoreDatabase } from './data/database.js';
import { PrismaMessageStore } from './message-store.service.js';
import { PrismaSessionStore } from './session-store.service.js';
import type { ScopedStores, TenantStores } from './tenant-stores.js';
import { PrismaTranscriptStore } from './transcript-store.service.js';
import { idOf } from './validation.js';

export class PrismaTenantStores implements TenantStores {
  constructor(private readonly db: StoreDatabase) {}

  forTenant(tenantId: string): ScopedStores {
    const tenant = idOf(tenantId, 'tenantId');
    const messages = new PrismaMessageStore(this.db, tenant);
    return {
      tenantId: tenant,
      messages,
      transcripts: new PrismaTranscriptStore(this.db, messages, tenant),
      sessions: new PrismaSessionStore(this.db, tenant),
      chats: new PrismaChatStore(this.db, tenant),
    };
  }
}
