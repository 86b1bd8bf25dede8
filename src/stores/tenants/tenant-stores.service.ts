// TenantStores over the Prisma schema: the same store classes, given a tenant.
import { PrismaChatStore } from '../chats/index.js';
import { StoreDatabase } from '../../engine/database.js';
import { PrismaMessageStore } from '../messages/index.js';
import { PrismaSessionStore } from '../sessions/index.js';
import type { ScopedStores, TenantStores } from './tenant-stores.js';
import { PrismaTranscriptStore } from '../transcripts/index.js';
import { idOf } from '../../values/validation.js';

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
