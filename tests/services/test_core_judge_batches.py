"""Work that may gather more writes than one transaction holds is done a transaction's worth at a
time, never refused: unjudged long-term entries (a judge model down while extraction ran on), the
rest owed; vectors of many short memories from one embeddings call (DREAMCHAT_EMBEDDING_BATCH > 25)."""

from __future__ import annotations

from dreamchat.domain.models import LongTermIndex, PairId
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.ports import MAX_TRANSACTION_ITEMS
from dreamchat.services.core_judgment import JUDGED_AT_ONCE, CoreJudgeService
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.vectors import Stale, _calls

PAIR = PairId(account_id="acc_judge", ai_user_id="ai_judge")
ZONE = "Asia/Shanghai"


def test_more_unjudged_entries_than_a_transaction_holds_are_judged_in_turns(runtime, clock) -> None:
    storage = Storage(runtime.store)
    with storage.pair(PAIR) as uow:
        for n in range(JUDGED_AT_ONCE + 5):
            entry = LongTermIndex(
                id=f"long_{n:02d}", title=f"第{n}件", key_points=["一件事"], detail_file="x.json", created_at=n
            )
            uow.long_terms.add(entry, None)
        uow.commit_in_parts()
    models = OfflineMemoryModels()
    judge = CoreJudgeService(storage, FallbackMemoryModels(models, attempts=1), clock)

    judge.judge(PAIR, ZONE)
    with storage.pair(PAIR) as uow:
        assert len(uow.long_terms.unjudged()) == 5 and uow.owed.get("judge_core") is not None

    judge.judge(PAIR, ZONE)
    with storage.pair(PAIR) as uow:
        assert uow.long_terms.unjudged() == [] and uow.owed.get("judge_core") is None


def test_a_call_of_many_short_memories_is_committed_a_transaction_at_a_time() -> None:
    def stale(n: int) -> Stale:
        return ([f"记忆{n}"], lambda vectors: None)

    calls = _calls([stale(n) for n in range(60)], per_call=64, at_most=256)

    assert [len(call) for call in calls] == [MAX_TRANSACTION_ITEMS, MAX_TRANSACTION_ITEMS, 10]
