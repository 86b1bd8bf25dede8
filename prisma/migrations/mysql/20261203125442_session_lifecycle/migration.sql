-- MySQL commits each statement: each table changes in one ALTER.
-- AlterTable
ALTER TABLE `agent_lg_write` ADD COLUMN `tenant_id` VARCHAR(191) NULL,
    ADD INDEX `agent_lg_write_tenant_id_idx`(`tenant_id`);

-- AlterTable
ALTER TABLE `agent_thread` ADD COLUMN `forked_from` VARCHAR(191) NULL,
    ADD COLUMN `fork_seq` INTEGER NULL,
    ADD INDEX `agent_thread_forked_from_created_at_id_idx`(`forked_from`, `created_at`, `id`);

-- AlterTable
ALTER TABLE `agent_tombstone` ADD COLUMN `tenant_id` VARCHAR(191) NULL,
    ADD INDEX `agent_tombstone_tenant_id_idx`(`tenant_id`);
