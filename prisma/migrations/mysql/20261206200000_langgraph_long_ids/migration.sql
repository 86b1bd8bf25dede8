-- LangGraph's thread ids, namespaces, task paths and channel names have no
-- length limit: TEXT ends at 65,535 bytes, LONGTEXT holds any. One ALTER per
-- table: MySQL commits each statement.
-- AlterTable
ALTER TABLE `agent_lg_checkpoint` MODIFY `thread_id` LONGTEXT NOT NULL,
    MODIFY `checkpoint_ns` LONGTEXT NOT NULL;

-- AlterTable
ALTER TABLE `agent_lg_write` MODIFY `task_path` LONGTEXT NOT NULL,
    MODIFY `channel_name` LONGTEXT NOT NULL;
