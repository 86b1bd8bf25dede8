-- AlterTable
ALTER TABLE "agent_thread" ALTER COLUMN "metadata" SET DATA TYPE TEXT;

-- AlterTable
ALTER TABLE "agent_message" ADD COLUMN     "provider_options" TEXT,
ADD COLUMN     "value_types" TEXT,
ALTER COLUMN "content" SET DATA TYPE TEXT,
ALTER COLUMN "metadata" SET DATA TYPE TEXT;

-- AlterTable
ALTER TABLE "agent_boundary" ALTER COLUMN "messages" SET DATA TYPE TEXT;

-- AlterTable
ALTER TABLE "agent_repair" ALTER COLUMN "message" SET DATA TYPE TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "agent_message_thread_id_message_id_key" ON "agent_message"("thread_id", "message_id");
