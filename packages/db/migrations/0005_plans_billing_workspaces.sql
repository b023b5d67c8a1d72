ALTER TABLE "connections" ADD COLUMN "paused_by_plan" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workspace_invites" ADD COLUMN "role" text DEFAULT 'member' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "current_period_start" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_stripe_customer_key" ON "workspaces" USING btree ("stripe_customer_id");