/** The schema id every summary file llmkb writes carries (see ./method-summary.ts). */
export const SUMMARY_SCHEMA = 'llmkb-summary-v2' as const;
