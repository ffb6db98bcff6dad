// Picks the model client for `provider/model`; a provider without its key is a clear error naming the variable.
import { AnthropicModel, anthropicClient } from "./anthropic-model.ts";
import { type ModelClient, ModelError, type ModelSettings, splitModelId } from "./model.ts";
import { OpenAIChatModel, openaiClient } from "./openai-model.ts";

/** Servers such as Ollama, vLLM or LM Studio take any key; the SDK insists on one. */
const NO_KEY_NEEDED = "not-needed";

export function createModelClient(model: string, settings: ModelSettings): ModelClient {
  const { provider, name } = splitModelId(model);
  switch (provider) {
    case "openai": {
      // A custom OPENAI_BASE_URL (a local OpenAI-compatible server) may need no key; api.openai.com always does.
      const apiKey = settings.openaiApiKey ?? (settings.openaiBaseUrl ? NO_KEY_NEEDED : undefined);
      if (apiKey === undefined) {
        throw new ModelError(
          "model_not_configured",
          `No API key for ${model}: set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server)`,
        );
      }
      return new OpenAIChatModel(model, name, openaiClient(settings.openaiBaseUrl, apiKey, settings.modelTimeoutMs));
    }
    case "ollama":
      return new OpenAIChatModel(
        model,
        name,
        openaiClient(settings.ollamaBaseUrl, NO_KEY_NEEDED, settings.modelTimeoutMs),
      );
    case "anthropic": {
      if (!settings.anthropicApiKey) {
        throw new ModelError("model_not_configured", `No API key for ${model}: set ANTHROPIC_API_KEY`);
      }
      return new AnthropicModel(
        model,
        name,
        anthropicClient(settings.anthropicBaseUrl, settings.anthropicApiKey, settings.modelTimeoutMs),
      );
    }
    default:
      throw new ModelError(
        "unknown_model_provider",
        `Unknown model provider "${provider}" in ${model}: use openai/<model>, ollama/<model> or anthropic/<model>`,
      );
  }
}
