-- MySQL commits each statement: each table changes in one ALTER. The new keys hold
-- the old ones' columns, so no rows can collide in them.
-- AlterTable
ALTER TABLE `agent_lg_checkpoint` DROP INDEX `agent_lg_checkpoint_thread_key_idx`,
    DROP INDEX `agent_lg_checkpoint_tenant_id_checkpoint_id_idx`,
    DROP PRIMARY KEY,
    ADD COLUMN `channel_versions` LONGTEXT NULL,
    ADD PRIMARY KEY (`thread_key`, `lane`, `checkpoint_id`);

-- AlterTable
ALTER TABLE `agent_lg_blob` DROP INDEX `agent_lg_blob_thread_key_idx`,
    DROP PRIMARY KEY,
    ADD PRIMARY KEY (`thread_key`, `lane`, `channel_name`, `channel_version`);
