-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_agent_lg_checkpoint" (
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
    "channel_versions" TEXT,

    PRIMARY KEY ("thread_key", "lane", "checkpoint_id")
);
INSERT INTO "new_agent_lg_checkpoint" ("checkpoint_data", "checkpoint_id", "checkpoint_ns", "checkpoint_type", "created_at", "lane", "metadata", "metadata_type", "parent_checkpoint_id", "tenant_id", "thread_id", "thread_key") SELECT "checkpoint_data", "checkpoint_id", "checkpoint_ns", "checkpoint_type", "created_at", "lane", "metadata", "metadata_type", "parent_checkpoint_id", "tenant_id", "thread_id", "thread_key" FROM "agent_lg_checkpoint";
DROP TABLE "agent_lg_checkpoint";
ALTER TABLE "new_agent_lg_checkpoint" RENAME TO "agent_lg_checkpoint";
CREATE TABLE "new_agent_lg_blob" (
    "lane" TEXT NOT NULL,
    "channel_name" TEXT NOT NULL,
    "channel_version" TEXT NOT NULL,
    "thread_key" TEXT NOT NULL,
    "payload_type" TEXT NOT NULL,
    "payload" BLOB,

    PRIMARY KEY ("thread_key", "lane", "channel_name", "channel_version")
);
INSERT INTO "new_agent_lg_blob" ("channel_name", "channel_version", "lane", "payload", "payload_type", "thread_key") SELECT "channel_name", "channel_version", "lane", "payload", "payload_type", "thread_key" FROM "agent_lg_blob";
DROP TABLE "agent_lg_blob";
ALTER TABLE "new_agent_lg_blob" RENAME TO "agent_lg_blob";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
