/**
 * The questions the web app suggests on the demo shop. Each is checked against a hand-computed query
 * (tooling/eval/test/demo-suggestions.test.ts), so a suggestion never shows a wrong number. A module of
 * its own (`@aqs/contracts/demo`) so that the web app takes it without the schemas.
 */
export const DEMO_SUGGESTED_QUESTIONS = [
  'how many orders by status',
  'revenue by month in 2025',
  'top 5 countries by number of customers',
  'average rating per product category',
] as const;
