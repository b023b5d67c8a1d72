CREATE TABLE "stream_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"instance_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stream_leases_key_idx" ON "stream_leases" USING btree ("key","expires_at");