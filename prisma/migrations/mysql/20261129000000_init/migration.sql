-- Ids compare byte for byte: a binary collation, not Prisma's default utf8mb4_unicode_ci,
-- under which "Thread-A" and "thread-a" (or two tenants) would be the same row.
-- CreateTable
CREATE TABLE `agent_thread` (
    `id` VARCHAR(191) NOT NULL,
    `tenant_id` VARCHAR(191) NULL,
    `title` TEXT NULL,
    `metadata` JSON NULL,
    `last_seq` INTEGER NOT NULL DEFAULT 0,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updated_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    INDEX `agent_thread_tenant_id_created_at_id_idx`(`tenant_id`, `created_at`, `id`),
    INDEX `agent_thread_created_at_id_idx`(`created_at`, `id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_message` (
    `thread_id` VARCHAR(191) NOT NULL,
    `seq` INTEGER NOT NULL,
    `role` VARCHAR(191) NULL,
    `event_type` VARCHAR(191) NULL,
    `content` JSON NOT NULL,
    `message_id` VARCHAR(191) NULL,
    `metadata` JSON NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    PRIMARY KEY (`thread_id`, `seq`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_boundary` (
    `thread_id` VARCHAR(191) NOT NULL,
    `seq` INTEGER NOT NULL,
    `kind` VARCHAR(191) NOT NULL,
    `cut_seq` INTEGER NOT NULL,
    `messages` JSON NOT NULL,
    `message_count` INTEGER NOT NULL,
    `source_count` INTEGER NOT NULL,
    `retained_count` INTEGER NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    PRIMARY KEY (`thread_id`, `seq`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_repair` (
    `thread_id` VARCHAR(191) NOT NULL,
    `seq` INTEGER NOT NULL,
    `message` JSON NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    PRIMARY KEY (`thread_id`, `seq`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_subsession` (
    `id` INTEGER NOT NULL AUTO_INCREMENT,
    `parent_id` VARCHAR(191) NOT NULL,
    `child_id` VARCHAR(191) NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    UNIQUE INDEX `agent_subsession_child_id_key`(`child_id`),
    INDEX `agent_subsession_parent_id_id_idx`(`parent_id`, `id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `agent_tombstone` (
    `id` VARCHAR(191) NOT NULL,
    `deleted_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- AddForeignKey
ALTER TABLE `agent_message` ADD CONSTRAINT `agent_message_thread_id_fkey` FOREIGN KEY (`thread_id`) REFERENCES `agent_thread`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `agent_boundary` ADD CONSTRAINT `agent_boundary_thread_id_fkey` FOREIGN KEY (`thread_id`) REFERENCES `agent_thread`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `agent_repair` ADD CONSTRAINT `agent_repair_thread_id_seq_fkey` FOREIGN KEY (`thread_id`, `seq`) REFERENCES `agent_boundary`(`thread_id`, `seq`) ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `agent_subsession` ADD CONSTRAINT `agent_subsession_parent_id_fkey` FOREIGN KEY (`parent_id`) REFERENCES `agent_thread`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `agent_subsession` ADD CONSTRAINT `agent_subsession_child_id_fkey` FOREIGN KEY (`child_id`) REFERENCES `agent_thread`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;
