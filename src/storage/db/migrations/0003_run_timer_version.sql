ALTER TABLE `tasks` ADD `timer_version` int DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `timers` ADD `planned_from` datetime(3);