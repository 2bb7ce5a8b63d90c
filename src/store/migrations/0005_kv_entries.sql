CREATE TABLE "kv_entries" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"structured" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
