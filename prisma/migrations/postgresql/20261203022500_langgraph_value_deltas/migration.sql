-- AlterTable
ALTER TABLE "agent_lg_blob" ADD COLUMN     "base_version" TEXT,
ADD COLUMN     "prefix_length" INTEGER,
ADD COLUMN     "nonce" BIGINT;
