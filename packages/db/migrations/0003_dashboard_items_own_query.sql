ALTER TABLE "dashboard_items" ADD COLUMN "kind" text NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "connection_id" text;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "query_dialect" text NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "query_text" text NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "query_spec" jsonb;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "question" text NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "data" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "refreshed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD COLUMN "last_error" jsonb;--> statement-breakpoint
ALTER TABLE "dashboard_items" ADD CONSTRAINT "dashboard_items_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE set null ON UPDATE no action;