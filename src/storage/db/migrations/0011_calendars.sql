CREATE TABLE `calendars` (
	`app` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`name` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`dates` mediumtext NOT NULL,
	`description` text,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `calendars_app_name_pk` PRIMARY KEY(`app`,`name`)
);
--> statement-breakpoint
ALTER TABLE `timers` ADD `skip_calendars` text;--> statement-breakpoint
ALTER TABLE `timers` ADD `skip_dates` mediumtext;