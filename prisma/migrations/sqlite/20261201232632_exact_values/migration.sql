-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_agent_boundary" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "cut_seq" INTEGER NOT NULL,
    "messages" TEXT NOT NULL,
    "message_count" INTEGER NOT NULL,
    "source_count" INTEGER NOT NULL,
    "retained_count" INTEGER,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("thread_id", "seq"),
    CONSTRAINT "agent_boundary_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "agent_thread" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_agent_boundary" ("created_at", "cut_seq", "kind", "message_count", "messages", "retained_count", "seq", "source_count", "thread_id") SELECT "created_at", "cut_seq", "kind", "message_count", "messages", "retained_count", "seq", "source_count", "thread_id" FROM "agent_boundary";
DROP TABLE "agent_boundary";
ALTER TABLE "new_agent_boundary" RENAME TO "agent_boundary";
CREATE TABLE "new_agent_message" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT,
    "event_type" TEXT,
    "content" TEXT NOT NULL,
    "message_id" TEXT,
    "metadata" TEXT,
    "provider_options" TEXT,
    "value_types" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("thread_id", "seq"),
    CONSTRAINT "agent_message_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "agent_thread" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_agent_message" ("content", "created_at", "event_type", "message_id", "metadata", "role", "seq", "thread_id") SELECT "content", "created_at", "event_type", "message_id", "metadata", "role", "seq", "thread_id" FROM "agent_message";
DROP TABLE "agent_message";
ALTER TABLE "new_agent_message" RENAME TO "agent_message";
CREATE UNIQUE INDEX "agent_message_thread_id_message_id_key" ON "agent_message"("thread_id", "message_id");
CREATE TABLE "new_agent_repair" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "message" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("thread_id", "seq"),
    CONSTRAINT "agent_repair_thread_id_seq_fkey" FOREIGN KEY ("thread_id", "seq") REFERENCES "agent_boundary" ("thread_id", "seq") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_agent_repair" ("created_at", "message", "seq", "thread_id") SELECT "created_at", "message", "seq", "thread_id" FROM "agent_repair";
DROP TABLE "agent_repair";
ALTER TABLE "new_agent_repair" RENAME TO "agent_repair";
CREATE TABLE "new_agent_thread" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant_id" TEXT,
    "title" TEXT,
    "metadata" TEXT,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_agent_thread" ("created_at", "id", "last_seq", "metadata", "tenant_id", "title", "updated_at") SELECT "created_at", "id", "last_seq", "metadata", "tenant_id", "title", "updated_at" FROM "agent_thread";
DROP TABLE "agent_thread";
ALTER TABLE "new_agent_thread" RENAME TO "agent_thread";
CREATE INDEX "agent_thread_tenant_id_created_at_id_idx" ON "agent_thread"("tenant_id", "created_at", "id");
CREATE INDEX "agent_thread_created_at_id_idx" ON "agent_thread"("created_at", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
