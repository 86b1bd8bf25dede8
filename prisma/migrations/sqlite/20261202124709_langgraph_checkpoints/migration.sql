-- CreateTable
CREATE TABLE "agent_lg_checkpoint" (
    "lane" TEXT NOT NULL,
    "checkpoint_id" TEXT NOT NULL,
    "thread_key" TEXT NOT NULL,
    "tenant_id" TEXT,
    "thread_id" TEXT NOT NULL,
    "checkpoint_ns" TEXT NOT NULL,
    "parent_checkpoint_id" TEXT,
    "checkpoint_data" BLOB NOT NULL,
    "checkpoint_type" TEXT NOT NULL,
    "metadata" BLOB NOT NULL,
    "metadata_type" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("lane", "checkpoint_id")
);

-- CreateTable
CREATE TABLE "agent_lg_blob" (
    "lane" TEXT NOT NULL,
    "channel_name" TEXT NOT NULL,
    "channel_version" TEXT NOT NULL,
    "thread_key" TEXT NOT NULL,
    "payload_type" TEXT NOT NULL,
    "payload" BLOB,

    PRIMARY KEY ("lane", "channel_name", "channel_version")
);

-- CreateTable
CREATE TABLE "agent_lg_write" (
    "lane" TEXT NOT NULL,
    "checkpoint_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "thread_key" TEXT NOT NULL,
    "task_path" TEXT NOT NULL,
    "channel_name" TEXT NOT NULL,
    "payload_type" TEXT NOT NULL,
    "payload" BLOB NOT NULL,

    PRIMARY KEY ("lane", "checkpoint_id", "task_id", "idx")
);

-- CreateIndex
CREATE INDEX "agent_lg_checkpoint_thread_key_idx" ON "agent_lg_checkpoint"("thread_key");

-- CreateIndex
CREATE INDEX "agent_lg_checkpoint_tenant_id_checkpoint_id_idx" ON "agent_lg_checkpoint"("tenant_id", "checkpoint_id");

-- CreateIndex
CREATE INDEX "agent_lg_blob_thread_key_idx" ON "agent_lg_blob"("thread_key");

-- CreateIndex
CREATE INDEX "agent_lg_write_thread_key_idx" ON "agent_lg_write"("thread_key");
