CREATE TABLE `audit_log` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`actor` varchar(128) NOT NULL,
	`action` varchar(32) NOT NULL,
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`timer_id` bigint unsigned,
	`batch_id` varchar(64),
	`before_json` mediumtext,
	`after_json` mediumtext,
	CONSTRAINT `audit_log_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
ALTER TABLE `tasks` ADD `first_fired_at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `labels` text;--> statement-breakpoint
ALTER TABLE `timers` ADD `description` text;--> statement-breakpoint
CREATE INDEX `audit_app_id_idx` ON `audit_log` (`app`,`id`);--> statement-breakpoint
CREATE INDEX `audit_timer_id_idx` ON `audit_log` (`timer_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_batch_id_idx` ON `audit_log` (`batch_id`,`id`);