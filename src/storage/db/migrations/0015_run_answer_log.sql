ALTER TABLE `task_failures` ADD `answer_log` mediumtext;--> statement-breakpoint
ALTER TABLE `tasks` ADD `answer_log` mediumtext;