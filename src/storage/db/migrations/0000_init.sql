CREATE TABLE `tasks` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`timer_id` bigint unsigned NOT NULL,
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`run_at` datetime(3) NOT NULL,
	`status` varchar(16) NOT NULL DEFAULT 'pending',
	`attempts` smallint NOT NULL DEFAULT 0,
	`http_status` smallint,
	`output` text,
	`error` varchar(1024),
	`fired_at` datetime(3),
	`duration_ms` int,
	`lease_until` datetime(3),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `tasks_id` PRIMARY KEY(`id`),
	CONSTRAINT `tasks_timer_run_uq` UNIQUE(`timer_id`,`run_at`)
);
--> statement-breakpoint
CREATE TABLE `timers` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`name` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`cron` varchar(128) NOT NULL,
	`timezone` varchar(64) NOT NULL DEFAULT 'UTC',
	`callback_url` varchar(2048) NOT NULL,
	`callback_method` varchar(8) NOT NULL DEFAULT 'POST',
	`callback_headers` text NOT NULL,
	`callback_body` mediumtext,
	`callback_timeout_ms` int NOT NULL,
	`retry_max_attempts` smallint NOT NULL,
	`retry_backoff_ms` int NOT NULL,
	`misfire_policy` varchar(16) NOT NULL DEFAULT 'fire_once',
	`misfire_threshold_ms` int NOT NULL DEFAULT 60000,
	`status` varchar(16) NOT NULL DEFAULT 'inactive',
	`version` int NOT NULL DEFAULT 1,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `timers_id` PRIMARY KEY(`id`),
	CONSTRAINT `timers_app_name_uq` UNIQUE(`app`,`name`)
);
--> statement-breakpoint
CREATE INDEX `tasks_status_run_idx` ON `tasks` (`status`,`run_at`);--> statement-breakpoint
CREATE INDEX `timers_app_id_idx` ON `timers` (`app`,`id`);--> statement-breakpoint
CREATE INDEX `timers_status_id_idx` ON `timers` (`status`,`id`);