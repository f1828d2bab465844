CREATE TABLE `apps` (
	`name` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`key_hash` char(64) NOT NULL,
	`prev_key_hash` char(64),
	`prev_key_until` datetime(3),
	`signing_secret` varchar(255) NOT NULL,
	`prev_signing_secret` varchar(255),
	`prev_signing_secret_until` datetime(3),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `apps_name` PRIMARY KEY(`name`),
	CONSTRAINT `apps_key_hash_uq` UNIQUE(`key_hash`),
	CONSTRAINT `apps_prev_key_hash_uq` UNIQUE(`prev_key_hash`)
);
