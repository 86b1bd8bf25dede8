-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "agent_thread" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT,
    "title" TEXT,
    "metadata" JSONB,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_thread_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_message" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT,
    "event_type" TEXT,
    "content" JSONB NOT NULL,
    "message_id" TEXT,
    "metadata" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_message_pkey" PRIMARY KEY ("thread_id","seq")
);

-- CreateTable
CREATE TABLE "agent_boundary" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "cut_seq" INTEGER NOT NULL,
    "messages" JSONB NOT NULL,
    "message_count" INTEGER NOT NULL,
    "source_count" INTEGER NOT NULL,
    "retained_count" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_boundary_pkey" PRIMARY KEY ("thread_id","seq")
);

-- CreateTable
CREATE TABLE "agent_repair" (
    "thread_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "message" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_repair_pkey" PRIMARY KEY ("thread_id","seq")
);

-- CreateTable
CREATE TABLE "agent_subsession" (
    "id" SERIAL NOT NULL,
    "parent_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_subsession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_tombstone" (
    "id" TEXT NOT NULL,
    "deleted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_tombstone_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_thread_tenant_id_created_at_id_idx" ON "agent_thread"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_thread_created_at_id_idx" ON "agent_thread"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_subsession_child_id_key" ON "agent_subsession"("child_id");

-- CreateIndex
CREATE INDEX "agent_subsession_parent_id_id_idx" ON "agent_subsession"("parent_id", "id");

-- AddForeignKey
ALTER TABLE "agent_message" ADD CONSTRAINT "agent_message_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "agent_thread"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_boundary" ADD CONSTRAINT "agent_boundary_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "agent_thread"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_repair" ADD CONSTRAINT "agent_repair_thread_id_seq_fkey" FOREIGN KEY ("thread_id", "seq") REFERENCES "agent_boundary"("thread_id", "seq") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_subsession" ADD CONSTRAINT "agent_subsession_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "agent_thread"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_subsession" ADD CONSTRAINT "agent_subsession_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "agent_thread"("id") ON DELETE CASCADE ON UPDATE CASCADE;
