"""The model price table of `bench/model_cost.py` and `docs/deploy.md`: one place, each price with its source.

Prices per million tokens, in the currency the provider bills the endpoint our registry calls
(`dreamchat.llm.registry`: api.deepseek.com, DashScope Beijing, Ark Beijing), converted to USD at
`CNY_PER_USD`. `checked` is the date of the snapshot of the provider's page read for this table
(by the search tool of the session that wrote it, not a live visit). Where a price could not be
verified against the provider's own page, `verified` is False and `note` says what it rests on.

`cached` is the price of a prompt token served by the provider's prefix cache; `cache` says how
that cache works for the calls we make (plain chat completions):
  - "automatic": the provider caches repeated prefixes by itself (DeepSeek, DashScope's implicit cache),
    prefixes shorter than `min_cached_tokens` are never cached;
  - "explicit": only through an API we do not call (Ark's context cache): we are billed `miss` for all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

CNY_PER_USD = 7.0  # an assumption: DashScope lists text-embedding-v4 at ¥0.5 and $0.072 (Beijing), i.e. 6.94


@dataclass(frozen=True)
class Price:
    model: str  # the provider's model name
    currency: str  # "USD" or "CNY"
    miss: float  # a prompt token not served by the cache, per 1 M
    cached: float  # a prompt token served by the cache, per 1 M
    output: float  # per 1 M
    cache: str  # "automatic", "explicit" or "none" (see the module's docstring)
    min_cached_tokens: int
    source: str
    checked: str
    verified: bool = True
    note: str = ""

    def usd(self, value: float) -> float:
        return value if self.currency == "USD" else value / CNY_PER_USD

    def cost(self, prompt: int, cached: int, output: int) -> float:
        """USD for these tokens; `cached` of the prompt at the cache price where the provider's cache can serve it."""
        served = cached if self.cache == "automatic" and cached >= self.min_cached_tokens else 0
        total = (prompt - served) * self.miss + served * self.cached + output * self.output
        return self.usd(total / 1e6)


DEEPSEEK = Price(
    model="deepseek-flash (DeepSeek-V4.1-Flash-1017), peak hours",
    currency="USD",
    miss=0.30,
    cached=0.006,
    output=1.20,
    cache="automatic",
    min_cached_tokens=64,
    source="https://api-docs.deepseek.com/quick_start/pricing (snapshot ?check=20261115); "
    "cache rules: https://api-docs.deepseek.com/guides/kv_cache",
    checked="2026-11-15",
    note="Off-peak (all but 01:00-04:00 and 06:00-10:00 UTC on weekdays, i.e. Beijing 9-12 and 14-18) is half: "
    "$0.003 / $0.15 / $0.60. The same prices in CNY: ¥0.04 / ¥2 / ¥8 at peak. deepseek-chat and "
    "deepseek-reasoner, our registry's defaults, were retired on 2026-07-24; deepseek-flash is the current name "
    "(thinking mode, our reasoner key, is billed the same). A hit needs a whole cache unit (the end of an earlier "
    "request's input or output, or a detected common prefix) to match.",
)
QWEN_PLUS = Price(
    model="qwen-plus (0-128 K input, non-thinking), Beijing",
    currency="CNY",
    miss=0.8,
    cached=0.16,
    output=2.0,
    cache="automatic",
    min_cached_tokens=256,
    source="https://help.aliyun.com/zh/model-studio/models (qwen-plus ¥0.0008 / ¥0.002 per 1 K); implicit cache at "
    "20 % of the input price, nothing under 256 tokens cached: https://help.aliyun.com/zh/model-studio/context-cache",
    checked="2026-10-11",
    note="International (Singapore) endpoint: $0.4 / $1.2, cached $0.08. DashScope's billing page for another "
    "product lists a qwen-plus cache hit at ¥0.0002 / 1 K (25 %); the context-cache page's 20 % is used. "
    "The 1,024-token minimum is the explicit cache's, not the implicit one's.",
)
DOUBAO_PRO = Price(
    model="doubao-pro-32k, Beijing",
    currency="CNY",
    miss=0.8,
    cached=0.16,
    output=2.0,
    cache="explicit",
    min_cached_tokens=0,
    source="https://www.volcengine.com/docs/82379/1544106 (Ark model pricing; its content could not be read here)",
    checked="unverified",
    verified=False,
    note="NOT VERIFIED: Ark's 2024-25 published price of Doubao-pro-32k (¥0.0008 in / ¥0.002 out per 1 K, cache hit "
    "¥0.00016, cache storage ¥0.000017 per 1 K tokens an hour); the model may be retired in favour of the "
    "doubao-seed family. Ark's prefix cache needs its context API (explicit, storage billed): plain chat "
    "completions, which we send, pay the full input price.",
)
TEXT_EMBEDDING_V4 = Price(
    model="text-embedding-v4, Beijing",
    currency="CNY",
    miss=0.5,
    cached=0.5,
    output=0.0,
    cache="none",
    min_cached_tokens=0,
    source="https://help.aliyun.com/zh/model-studio/text-embedding-synchronous-api (¥0.0005 per 1 K input tokens)",
    checked="2026-10",
    note="Singapore: $0.07 per 1 M.",
)

# The price of each model key (dreamchat.llm.registry.DEFAULTS) and of the embedding role.
BY_KEY = {
    "deepseek_chat": DEEPSEEK,
    "deepseek_reasoner": DEEPSEEK,
    "deepseek_core_memory": DEEPSEEK,
    "qwen_short_to_mid": QWEN_PLUS,
    "doubao_mid_to_long": DOUBAO_PRO,
    "embedding": TEXT_EMBEDDING_V4,
}
