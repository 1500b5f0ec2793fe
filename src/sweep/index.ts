/**
 * `llmkb/sweep`: studies for library users: read a study file, plan it, run it (every model x
 * method x setting as a resumable run), and merge the shards run on several machines.
 */
export { loadStudy, studySchema, type Study, type StudyFile, type StudyModel, type StudyMethod } from './study.js';
export { runStudy, type SweepOptions, type SweepResult } from './run-study.js';
export type { SweepRecord } from './sweep-record.js';
export { planStudy, formatPlan, type StudyPlan, type PlannedRun } from './study-plan.js';
export { mergeResults, type MergeOptions, type MergeResult } from './merge-results.js';
export { studyJobs, parseShard, type StudyJob, type Shard } from './study-jobs.js';
