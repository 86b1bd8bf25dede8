-- JSON is kept as text: MySQL's JSON type reorders keys, and MariaDB's is LONGTEXT
-- with a JSON_VALID check. MODIFY replaces each column's definition, check included.
-- MySQL commits each statement: the unique key comes first, so that a database
-- holding a message id twice in a thread fails before anything has changed.
-- CreateIndex
CREATE UNIQUE INDEX `agent_message_thread_id_message_id_key` ON `agent_message`(`thread_id`, `message_id`);

-- AlterTable
ALTER TABLE `agent_thread` MODIFY `metadata` LONGTEXT NULL;

-- AlterTable
ALTER TABLE `agent_message` ADD COLUMN `provider_options` LONGTEXT NULL,
    ADD COLUMN `value_types` LONGTEXT NULL,
    MODIFY `content` LONGTEXT NOT NULL,
    MODIFY `metadata` LONGTEXT NULL;

-- AlterTable
ALTER TABLE `agent_boundary` MODIFY `messages` LONGTEXT NOT NULL;

-- AlterTable
ALTER TABLE `agent_repair` MODIFY `message` LONGTEXT NOT NULL;
