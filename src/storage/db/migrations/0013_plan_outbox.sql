CREATE TABLE `plan_outbox` (
	`timer_id` bigint unsigned NOT NULL,
	`token` varchar(32) NOT NULL,
	`marked_at` datetime(3) NOT NULL,
	CONSTRAINT `plan_outbox_timer_id` PRIMARY KEY(`timer_id`)
);
