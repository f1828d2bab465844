ALTER TABLE `timers` ADD `every_ms` bigint;--> statement-breakpoint
ALTER TABLE `timers` ADD `offset_ms` bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `jitter_ms` int DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `paused_note` varchar(1024);--> statement-breakpoint
ALTER TABLE `timers` ADD `paused_at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `paused_until` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `auto_pause_after` int;--> statement-breakpoint
ALTER TABLE `timers` ADD `failure_streak` int DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `timers_status_paused_until_idx` ON `timers` (`status`,`paused_until`);