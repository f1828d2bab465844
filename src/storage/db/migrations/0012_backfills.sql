CREATE TABLE `backfills` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`timer_id` bigint unsigned NOT NULL,
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`from_at` datetime(3) NOT NULL,
	`to_at` datetime(3) NOT NULL,
	`overlap_policy` varchar(16),
	`status` varchar(16) NOT NULL,
	`round` int NOT NULL DEFAULT 0,
	`runs` int NOT NULL,
	`planned` int NOT NULL,
	`sent` int NOT NULL DEFAULT 0,
	`cursor_at` datetime(3) NOT NULL,
	`checked_at` datetime(3),
	`cancelled_at` datetime(3),
	`created_by` varchar(128),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`runs_until` datetime(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `backfills_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `backfills_timer_idx` ON `backfills` (`timer_id`,`id`);--> statement-breakpoint
CREATE INDEX `backfills_status_idx` ON `backfills` (`status`,`id`);