-- AlterTable
ALTER TABLE "agent_lg_write" ADD COLUMN "tenant_id" TEXT;

-- AlterTable
ALTER TABLE "agent_thread" ADD COLUMN "forked_from" TEXT;
ALTER TABLE "agent_thread" ADD COLUMN "fork_seq" INTEGER;

-- AlterTable
ALTER TABLE "agent_tombstone" ADD COLUMN "tenant_id" TEXT;

-- CreateIndex
CREATE INDEX "agent_lg_write_tenant_id_idx" ON "agent_lg_write"("tenant_id");

-- CreateIndex
CREATE INDEX "agent_thread_forked_from_created_at_id_idx" ON "agent_thread"("forked_from", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_tombstone_tenant_id_idx" ON "agent_tombstone"("tenant_id");
