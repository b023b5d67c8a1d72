ALTER TABLE "artifacts" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "query_templates" ADD COLUMN "parameters" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "query_templates" ADD COLUMN "query_spec" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "query_templates" ADD COLUMN "source_run_id" text;--> statement-breakpoint
ALTER TABLE "query_templates" ADD CONSTRAINT "query_templates_source_run_id_runs_id_fk" FOREIGN KEY ("source_run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;