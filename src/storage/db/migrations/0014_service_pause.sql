CREATE TABLE `service_pause` (
	`id` int NOT NULL,
	`note` varchar(1024) NOT NULL,
	`paused_at` datetime(3) NOT NULL,
	`paused_by` varchar(128) NOT NULL,
	CONSTRAINT `service_pause_id` PRIMARY KEY(`id`)
);
