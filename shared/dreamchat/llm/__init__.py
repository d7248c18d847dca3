"""Language models: the port services call, the gateway over the OpenAI protocol, the contracts, the
prompts and the offline provider. Import each name from its module:

- `port`: `LLMGateway` (what services may assume), `Completion`, `TokenUsage`, `ToolCall`;
- `gateway`: `OpenAIGateway`, the port over the `openai` SDK, composed of
  `client` (`OpenAIClient`: retries, deadlines, usage), `provider_errors` (what a provider's 400 means,
  calling again without what it refused), `tool_loop` (`ToolLoop`), `structured` (`StructuredOutput`)
  and `usage` (`CallRecord`, `UsageTotals`);
- `registry`: the model keys and their settings; `contracts`: the JSON output formats;
- `prompts`, `chat_prompts`: the prompts; `parsing`: tolerant JSON parsing;
- `memory_models`: the memory steps (`FallbackMemoryModels`); `offline`: the offline provider;
- `errors`: the errors services catch (nothing from the SDK leaks past the gateway).
"""
