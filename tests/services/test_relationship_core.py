"""Issue 28 item 3: the relationship is one current core entry, written over in place on each change of
level, its history kept apart; the context's five are the most important of the other entries, so
relationship changes never push "极度恐高" out, whether the store was written before or after the change."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from dreamchat.domain.core_memory import RELATIONSHIP_ID
from dreamchat.domain.models import CoreMemory, LongTermIndex, Relationship
from dreamchat.llm.contracts import CoreJudgment
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import build_services
from dreamchat.services.core_judgment import CoreJudgeService
from dreamchat.services.export import ExportService
from dreamchat.services.storage.unit_of_work import Storage

pytestmark = pytest.mark.every_store

FEAR = "他极度恐高，坐缆车都会发抖"
OTHERS = ["他的妈妈去年冬天去世了", "他对猫毛严重过敏", "他最好的朋友叫阿杰"]  # importance 9
NAME = "喜欢被叫小名阿星"  # the person's own, importance 8
MINOR = "他喜欢喝美式咖啡"  # importance 7: the sixth, out of the five
CHANGES = ["关系较好", "特别关心", "关系较好", "一般", "关系较好"]  # from 一般: five changes of level


def companion(services):
    ai = services.ai_users.create("acc_rel", {"name": "小梦"})
    return services.ai_users.companion("acc_rel", ai.id)


def remember(services, pair, clock) -> None:
    """The pair's core memories, oldest first: "极度恐高" is the oldest of importance 8."""
    entries = [(FEAR, 8, "ai"), *((text, 9, "ai") for text in OTHERS), (NAME, 8, "person"), (MINOR, 7, "ai")]
    with Storage(services.runtime.store).pair(pair) as uow:
        for n, (content, importance, source) in enumerate(entries):
            at = int(clock.now().timestamp()) + n
            uow.core.add(
                CoreMemory(id=f"core_{n}", content=content, importance=importance, created_at=at, source=source)
            )
        uow.commit()


def core_lines(services, pair, ai_user) -> list[str]:
    context = services.views.context(pair, ai_user, None).context
    text = next(s.text for s in context.sections if s.name == "core")
    return [line for line in text.splitlines() if line.startswith("- ")]


def change_five_times(services, pair, ai_user, clock) -> None:
    for n, level in enumerate(CHANGES):
        clock.advance(days=10)  # three judgments a month are possible: five changes in two months
        services.soul.set_relationship(pair, ai_user, level, None, f"第{n + 1}次变化")


def test_five_relationship_changes_leave_the_five_most_important_in_the_context(runtime, offline_services, clock):
    services = offline_services
    pair, ai_user = companion(services)
    remember(services, pair, clock)

    change_five_times(services, pair, ai_user, clock)

    lines = core_lines(services, pair, ai_user)
    assert any(FEAR in line for line in lines)
    assert all(any(text in line for line in lines) for text in [*OTHERS, NAME])
    assert not any(MINOR in line for line in lines)  # still five, and the least important is the one left out
    relationship = [line for line in lines if "关系" in line]
    assert relationship == ["- 你们现在的关系是「关系较好」（此前是「一般」）：第5次变化"]
    assert len(lines) == 6


def test_the_current_entry_is_written_over_in_place_and_the_history_is_kept(runtime, offline_services, clock):
    services = offline_services
    pair, ai_user = companion(services)

    change_five_times(services, pair, ai_user, clock)

    with Storage(services.runtime.store).pair(pair) as uow:
        stored = [read for read in uow.core.read_all() if read.entity.source == "relationship"]
    current = [read for read in stored if read.entity.id == RELATIONSHIP_ID]
    assert len(current) == 1 and current[0].version == len(CHANGES)  # one item, written five times
    assert current[0].entity.content == "你们现在的关系是「关系较好」（此前是「一般」）：第5次变化"
    assert current[0].entity.created_at == int(clock.now().timestamp())
    files = services.views.memory_files(pair)
    assert [c.id for c in files.core] == [RELATIONSHIP_ID]
    history = [c.content for c in files.relationship_history]
    assert history == [
        "关系等级从「一般」变为「关系较好」：第1次变化",
        "关系等级从「关系较好」变为「特别关心」：第2次变化",
        "关系等级从「特别关心」变为「关系较好」：第3次变化",
        "关系等级从「关系较好」变为「一般」：第4次变化",
        "关系等级从「一般」变为「关系较好」：第5次变化",
    ]
    assert len(stored) == len(CHANGES) + 1


def test_the_same_level_again_writes_no_change(runtime, offline_services, clock):
    services = offline_services
    pair, ai_user = companion(services)
    services.soul.set_relationship(pair, ai_user, "关系较好", None, "聊得投机")
    services.soul.set_relationship(pair, ai_user, "关系较好", 12.0, "只改了主动联系的间隔")
    files = services.views.memory_files(pair)
    assert len(files.relationship_history) == 1 and files.relationship.heartbeat_hours == 12.0


def old_format(services, pair, clock) -> None:
    """A store written before the current entry existed: one core entry per change, and the level."""
    levels = ["一般", *CHANGES]
    with Storage(services.runtime.store).pair(pair) as uow:
        for n in range(len(CHANGES)):
            clock.advance(days=10)
            at = int(clock.now().timestamp())
            content = f"关系等级从「{levels[n]}」变为「{levels[n + 1]}」：第{n + 1}次变化"
            change = CoreMemory(
                id=f"core_rel_{at:010d}_00000{n}", content=content, importance=8, category="关系", created_at=at
            )
            uow.core.add(change.model_copy(update={"source": "relationship"}))
        uow.relationship.save(Relationship(level=CHANGES[-1], reason="第5次变化"), uow.relationship.get())
        uow.commit()


def test_an_old_store_with_five_changes_keeps_the_important_memory_in_the_context(runtime, offline_services, clock):
    services = offline_services
    pair, ai_user = companion(services)
    remember(services, pair, clock)
    old_format(services, pair, clock)

    lines = core_lines(services, pair, ai_user)
    assert any(FEAR in line for line in lines) and not any(MINOR in line for line in lines)
    assert [line for line in lines if "关系" in line] == [
        "- 关系等级从「一般」变为「关系较好」：第5次变化"
    ]  # the newest
    files = services.views.memory_files(pair)
    assert len(files.relationship_history) == len(CHANGES)
    assert all(c.source != "relationship" for c in files.core)

    clock.advance(days=10)
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "第6次变化")

    lines = core_lines(services, pair, ai_user)
    assert any(FEAR in line for line in lines)
    assert [line for line in lines if "关系" in line] == [
        "- 你们现在的关系是「特别关心」（此前是「关系较好」）：第6次变化"
    ]
    assert len(services.views.memory_files(pair).relationship_history) == len(CHANGES) + 1


def test_the_export_holds_the_current_entry_among_core_and_every_change_as_history(runtime, offline_services, clock):
    services = offline_services
    pair, ai_user = companion(services)
    remember(services, pair, clock)
    change_five_times(services, pair, ai_user, clock)
    exports = ExportService(
        services.repo,
        services.profiles,
        services.heartbeat_states,
        services.ai_users,
        services.friend_lists,
        clock,
    )

    document = json.loads(b"".join(exports.pair("acc_rel", ai_user.id)))

    assert [c["id"] for c in document["core"] if c["source"] == "relationship"] == [RELATIONSHIP_ID]
    history = document["relationship"]["history"]
    assert len(history) == len(CHANGES) and all(c["id"] != RELATIONSHIP_ID for c in history)
    assert history[-1]["content"].endswith("第5次变化") and document["relationship"]["current"]["level"] == "关系较好"


def test_the_core_judge_sees_the_current_entries_not_the_relationship_history(runtime, offline_services, clock):
    class Recording(OfflineMemoryModels):
        shown: list[list[str]] = []

        def judge_core(self, new_items, existing, now):  # noqa: ANN001, ANN201 - as the parent
            self.shown.append([m.content for m in existing])
            return super().judge_core(new_items, existing, now)

    services = offline_services
    pair, ai_user = companion(services)
    remember(services, pair, clock)
    change_five_times(services, pair, ai_user, clock)
    storage = Storage(services.runtime.store)
    with storage.pair(pair) as uow:
        entry = LongTermIndex(id="long_x", title="缆车", key_points=["坐缆车"], detail_file="x.json", created_at=1)
        uow.long_terms.add(entry, None)
        uow.commit()
    models = Recording()
    CoreJudgeService(storage, FallbackMemoryModels(models, attempts=1), clock).judge(pair, ai_user.timezone)

    [shown] = models.shown
    assert FEAR in shown and len(shown) == 1 + len(OTHERS) + 2 + 1  # five of the AI's, the person's, the current one
    assert not [line for line in shown if line.startswith("关系等级从")]  # no history line


HUANGSHAN = "我们一起去爬了黄山，他第一次没有因为恐高而退缩，还在山顶给我拍了照片"


class JudgeSeen(OfflineMemoryModels):
    """The offline provider, whose core judgment records what it was shown and proposes `proposal`."""

    def __init__(self, proposal: str) -> None:
        self.proposal = proposal
        self.shown: list[list[CoreMemory]] = []

    def judge_core(self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime):
        self.shown.append(list(existing))
        return CoreJudgment(create=True, content=self.proposal, importance=9, category="经历")


def test_the_core_judge_sees_the_current_entries_and_not_thirty_changes_of_level(runtime, clock):
    models = JudgeSeen(HUANGSHAN)
    services = build_services(runtime, memory_models=FallbackMemoryModels(models, models, attempts=1))
    pair, ai_user = companion(services)
    remember(services, pair, clock)
    for n in range(30):
        clock.advance(days=10)
        level = "关系较好" if n % 2 == 0 else "一般"
        services.soul.set_relationship(pair, ai_user, level, None, HUANGSHAN if n == 2 else f"第{n + 1}次变化")

    services.topics.record(pair, "user", "今天又想起爬黄山的事了")
    services.compression.compress_now(pair)
    clock.advance(hours=25)
    result = services.extractor.extract(pair, ai_user.timezone, force=True)

    [shown] = models.shown
    relationship = [m for m in shown if m.source == "relationship"]
    assert [m.id for m in relationship] == [RELATIONSHIP_ID]  # the one current entry, none of the 30 changes
    assert {m.content for m in shown} == {FEAR, *OTHERS, NAME, MINOR, relationship[0].content}
    # the proposal repeats a change's reason: the history is not a duplicate, so it is admitted
    assert [m.content for m in result.core] == [HUANGSHAN]
    history = services.views.memory_files(pair).relationship_history
    assert len(history) == 30 and any(HUANGSHAN in m.content for m in history)  # kept apart, all of it
