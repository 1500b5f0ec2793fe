/** llmkb library API. */
export * from './errors.js';
export { VERSION } from './version.js';
export * from './providers/language-model.js';
export { OpenAICompatibleProvider, type OpenAICompatibleSettings, parseRetryAfter } from './providers/openai-compatible-provider.js';
export { LlamaProvider, type LlamaSettings } from './providers/llama-provider.js';
export { parseModelSpec, type ModelSpec } from './providers/model-spec.js';
export { createLanguageModel, type CreateModelContext } from './providers/create-language-model.js';
export * from './config/config.js';
export { ModelExecutor, type Accounting, type Executed, type ExecutorOptions } from './executor/model-executor.js';
export { openDatabase, type Db } from './store/database.js';
export { CallCache, cacheKey, canonicalJson, type CacheEntry } from './store/call-cache.js';
export { RunStore, Run, runId, type RunSpec, type RunInfo, type StageStatus } from './store/run-store.js';
export { runStage, type StageWork } from './store/run-stage.js';
export { Progress, formatDuration, type ProgressOptions } from './progress/progress.js';
export { Workspace, type WorkspaceOptions } from './workspace.js';
