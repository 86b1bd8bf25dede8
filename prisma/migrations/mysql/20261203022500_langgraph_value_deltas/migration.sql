-- One ALTER: MySQL commits each statement, and this one is all or nothing.
-- AlterTable
ALTER TABLE `agent_lg_blob` ADD COLUMN `base_version` VARCHAR(191) NULL,
    ADD COLUMN `prefix_length` INTEGER NULL,
    ADD COLUMN `nonce` BIGINT NULL;
