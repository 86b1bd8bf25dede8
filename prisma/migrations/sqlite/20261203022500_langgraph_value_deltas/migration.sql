-- AlterTable
ALTER TABLE "agent_lg_blob" ADD COLUMN "base_version" TEXT;
ALTER TABLE "agent_lg_blob" ADD COLUMN "prefix_length" INTEGER;
ALTER TABLE "agent_lg_blob" ADD COLUMN "nonce" BIGINT;
