-- DropIndex
DROP INDEX "agent_lg_checkpoint_thread_key_idx";

-- DropIndex
DROP INDEX "agent_lg_checkpoint_tenant_id_checkpoint_id_idx";

-- DropIndex
DROP INDEX "agent_lg_blob_thread_key_idx";

-- AlterTable
ALTER TABLE "agent_lg_checkpoint" DROP CONSTRAINT "agent_lg_checkpoint_pkey",
ADD COLUMN     "channel_versions" TEXT,
ADD CONSTRAINT "agent_lg_checkpoint_pkey" PRIMARY KEY ("thread_key", "lane", "checkpoint_id");

-- AlterTable
ALTER TABLE "agent_lg_blob" DROP CONSTRAINT "agent_lg_blob_pkey",
ADD CONSTRAINT "agent_lg_blob_pkey" PRIMARY KEY ("thread_key", "lane", "channel_name", "channel_version");
