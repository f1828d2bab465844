CREATE TABLE `task_failures` (
	`id` bigint unsigned NOT NULL,
	`timer_id` bigint unsigned NOT NULL,
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`run_at` datetime(3) NOT NULL,
	`timer_version` int NOT NULL DEFAULT 0,
	`status` varchar(16) NOT NULL DEFAULT 'pending',
	`run_trigger` varchar(16) NOT NULL DEFAULT 'schedule',
	`attempts` smallint NOT NULL DEFAULT 0,
	`http_status` smallint,
	`output` text,
	`error` varchar(1024),
	`fired_at` datetime(3),
	`first_fired_at` datetime(3),
	`duration_ms` int,
	`lease_until` datetime(3),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `task_failures_id_run_at_pk` PRIMARY KEY(`id`,`run_at`),
	CONSTRAINT `task_failures_timer_run_uq` UNIQUE(`timer_id`,`run_at`)
);
--> statement-breakpoint
-- Hand-written (drizzle-kit cannot express partitioning): the primary key takes run_at
-- and the table is RANGE-partitioned by day on it, in one ALTER (one copy of the table).
-- The bounds are computed when it runs: everything up to today (UTC) goes to today's
-- partition, the rest to p_future, which the service splits into days ahead
-- (src/storage/db/task-partitions.ts).
SET @partition_tasks = CONCAT(
  'ALTER TABLE `tasks` DROP PRIMARY KEY, ADD PRIMARY KEY (`id`, `run_at`) ',
  'PARTITION BY RANGE COLUMNS(`run_at`) (',
  'PARTITION `p', DATE_FORMAT(UTC_DATE(), '%Y%m%d'), '` VALUES LESS THAN (''',
  DATE_FORMAT(UTC_DATE() + INTERVAL 1 DAY, '%Y-%m-%d 00:00:00'), '''), ',
  'PARTITION `p_future` VALUES LESS THAN (MAXVALUE))');--> statement-breakpoint
PREPARE partition_tasks FROM @partition_tasks;--> statement-breakpoint
EXECUTE partition_tasks;--> statement-breakpoint
DEALLOCATE PREPARE partition_tasks;--> statement-breakpoint
CREATE INDEX `task_failures_run_idx` ON `task_failures` (`run_at`);