ALTER TABLE "dashboard_items" ADD COLUMN "source_table" jsonb;
--> statement-breakpoint
-- Chart items pinned before this column get the rows of their run's table, when the item still shows
-- what its chart artifact shows (it was not refreshed on its own since); the others get them at their
-- next refresh.
UPDATE "dashboard_items" AS "item"
SET "source_table" = "run_table"."payload"
FROM "artifacts" AS "chart", "artifacts" AS "run_table"
WHERE "item"."kind" = 'chart'
  AND "item"."source_table" IS NULL
  AND "chart"."id" = "item"."artifact_id"
  AND "item"."refreshed_at" IS NOT DISTINCT FROM "chart"."refreshed_at"
  AND "run_table"."run_id" = "chart"."run_id"
  AND "run_table"."kind" = 'table';
