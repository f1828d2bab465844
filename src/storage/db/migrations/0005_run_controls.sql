ALTER TABLE `timers` MODIFY COLUMN `cron` varchar(128);--> statement-breakpoint
ALTER TABLE `apps` ADD `notify` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `run_trigger` varchar(16) DEFAULT 'schedule' NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `start_at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `end_at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `max_runs` int;--> statement-breakpoint
ALTER TABLE `timers` ADD `runs_planned` int DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `final_run_at` datetime(3);--> statement-breakpoint
ALTER TABLE `timers` ADD `overlap_policy` varchar(16) DEFAULT 'allow' NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `notify` text;