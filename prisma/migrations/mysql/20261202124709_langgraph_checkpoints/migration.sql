-- CreateTable
CREATE TABLE `agent_lg_checkpoint` (
    `lane` VARCHAR(191) NOT NULL,
    `checkpoint_id` VARCHAR(191) NOT NULL,
    `thread_key` VARCHAR(191) NOT NULL,
    `tenant_id` VARCHAR(191) NULL,
    `thread_id` TEXT NOT NULL,
    `checkpoint_ns` TEXT NOT NULL,
    `parent_checkpoint_id` VARCHAR(191) NULL,
    `checkpoint_data` LONGBLOB NOT NULL,
    `checkpoint_type` VARCHAR(191) NOT NULL,
    `metadata` LONGBLOB NOT NULL,
    `metadata_type` VARCHAR(191) NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    INDEX `agent_lg_checkpoint_thread_key_idx`(`thread_key`),
    INDEX `agent_lg_checkpoint_tenant_id_checkpoint_id_idx`(`tenant_id`, `checkpoint_id`),
    PRIMARY KEY (`lane`, `checkpoint_id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_lg_blob` (
    `lane` VARCHAR(191) NOT NULL,
    `channel_name` VARCHAR(191) NOT NULL,
    `channel_version` VARCHAR(191) NOT NULL,
    `thread_key` VARCHAR(191) NOT NULL,
    `payload_type` VARCHAR(191) NOT NULL,
    `payload` LONGBLOB NULL,

    INDEX `agent_lg_blob_thread_key_idx`(`thread_key`),
    PRIMARY KEY (`lane`, `channel_name`, `channel_version`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_lg_write` (
    `lane` VARCHAR(191) NOT NULL,
    `checkpoint_id` VARCHAR(191) NOT NULL,
    `task_id` VARCHAR(191) NOT NULL,
    `idx` INTEGER NOT NULL,
    `thread_key` VARCHAR(191) NOT NULL,
    `task_path` TEXT NOT NULL,
    `channel_name` TEXT NOT NULL,
    `payload_type` VARCHAR(191) NOT NULL,
    `payload` LONGBLOB NOT NULL,

    INDEX `agent_lg_write_thread_key_idx`(`thread_key`),
    PRIMARY KEY (`lane`, `checkpoint_id`, `task_id`, `idx`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
