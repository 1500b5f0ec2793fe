/**
 * `llmkb/providers`: the built-in providers' model classes, for library users who build a model
 * from its settings instead of a spec string (`createLanguageModel` and `createScorerModel` in the
 * package root take specs), and the scripted model for tests.
 */
export { OpenAICompatibleModel, type OpenAICompatibleSettings } from './openai-compatible/openai-compatible-model.js';
export { LlamaModel, type LlamaSettings } from './llama/llama-model.js';
export { LlamaReranker, type LlamaRerankerSettings } from './llama/llama-reranker.js';
export { MockModel, type MockSettings, type MockRule, type MockCall, type MockResponder } from './mock/mock-model.js';
export { readMockReplies } from './mock/mock-provider.js';
export { TeiClassifier, type TeiSettings } from './tei/tei-classifier.js';
export { VllmPoolingClassifier, type VllmPoolingSettings } from './vllm-pooling/vllm-pooling-classifier.js';
export { LlmClassifier, type LlmClassifierSettings } from './llm-classifier/llm-classifier.js';
export { OnnxClassifier, type OnnxClassifierSettings } from './onnx/onnx-classifier.js';
