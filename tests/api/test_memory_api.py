"""The memory API, and a scripted Chinese conversation through every tier."""

from __future__ import annotations

import json

from tests.api.test_chat import CHAT_MODEL, send
from tests.fakes.fake_llm import Reply

TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
COMFORT = "别怕，我陪着你。恐高的人其实很多，一点都不丢人，以后我们出去玩就挑地面上的项目，好不好呀？"
CHEER = "加油！能坚持写小说真的很了不起，写完第一章一定要先给我看看，我想做你的第一个读者，说好了哦，不许反悔！"


def summary(text: str, **tags) -> Reply:
    return Reply.json({"summary": text, "emotion_tags": {**TAGS, **tags}})


def test_three_topics_ended_three_ways_go_through_every_tier(app, person, ai, fake_llm, clock) -> None:
    bus = app.state.runtime.bus
    # topic 1 ends by a farewell keyword
    fake_llm.script(CHAT_MODEL, Reply.text("海边好呀！"), Reply.text("拜拜，周六见~"))
    fake_llm.script("qwen-plus", summary("约好周六一起去海边看日出"))
    send(person, ai, "这周六我们去海边看日出吧")
    clock.advance(minutes=1)
    assert send(person, ai, "就这么定了，拜拜")[-1][1]["topic_ended"] is True
    bus.drain()
    # topic 2 ends by the model's marker
    clock.advance(hours=3)
    # the AI's side makes most of a topic: its summary keeps within the topic's share (30 %)
    fake_llm.script(CHAT_MODEL, Reply.text(f"{COMFORT}\n[TOPIC_ENDED]"))
    fake_llm.script(
        "qwen-plus",
        summary("对方坦白自己极度恐高，坐缆车都会发抖", basic_emotion="关心", scene="求助", atmosphere="平和"),
    )
    assert send(person, ai, "其实我极度恐高，坐缆车都会发抖")[-1][1]["topic_ended"] is True
    bus.drain()
    # topic 3 ends by an idle gap: the first message after it closes the topic
    clock.advance(hours=1)
    fake_llm.script(CHAT_MODEL, Reply.text(CHEER), Reply.text("早呀"))
    fake_llm.script(
        "qwen-plus",
        summary("对方说自己想成为一名作家，正在写第一部小说", basic_emotion="好奇", scene="讨论", atmosphere="热烈"),
    )
    send(person, ai, "我一直想成为一名作家，最近在写第一部小说")
    clock.advance(hours=7)
    assert send(person, ai, "早上好")[-1][1]["topic_ended"] is False
    bus.drain()

    files = person.get(f"/api/memory/{ai['id']}/files").json()
    mids = files["mid_term"]
    assert [m["summary"] for m in mids] == [
        "约好周六一起去海边看日出",
        "对方坦白自己极度恐高，坐缆车都会发抖",
        "对方说自己想成为一名作家，正在写第一部小说",
    ]
    assert [m["message_count"] for m in mids] == [4, 2, 2]
    assert [m["emotion_tags"]["scene"] for m in mids] == ["闲聊", "求助", "讨论"]
    for mid in mids:
        assert mid["id"] == "mid_" + mid["topic_id"].removeprefix("topic_")
        assert mid["time_precision"] == "hour" and mid["created_at"] % 3600 == 0
        assert mid["extracted_to_long"] is False and mid["degraded"] is False
        assert 0 < mid["compression_ratio"] < 1
    assert [c["content"] for c in files["short_term"]["conversations"]] == ["早上好", "早呀"]
    assert files["short_term_pending"] == []

    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "海边看日出之约",
                        "key_points": ["周六去海边", "一起看日出"],
                        "detail_content": "两人约好周六去海边看日出",
                        "source_mid_ids": [mids[0]["id"]],
                    },
                    {
                        "title": "恐高",
                        "key_points": ["极度恐高", "坐缆车会发抖"],
                        "detail_content": "对方坦白自己极度恐高",
                        "source_mid_ids": [mids[1]["id"]],
                    },
                    {
                        "title": "作家梦想",
                        "key_points": ["想成为作家", "在写第一部小说"],
                        "detail_content": "对方的梦想是成为作家",
                        "source_mid_ids": [mids[2]["id"]],
                    },
                ]
            }
        ),
    )
    fake_llm.script(
        CHAT_MODEL,
        # the third topic's relationship judgment got no JSON from the chat model: owed, redone first
        Reply.json({"level": "一般", "reason": "还在熟悉"}),
        Reply.json(
            {"create": True, "content": "对方极度恐高，不要提议高处的活动", "importance": 9, "category": "禁忌"}
        ),
    )
    extracted = person.post(f"/api/memory/{ai['id']}/extract").json()
    assert extracted["healed"] == [{"kind": "judge_relationship", "id": "", "outcome": "healed"}]
    assert [e["title"] for e in extracted["long_term"]] == ["海边看日出之约", "恐高", "作家梦想"]
    assert [c["content"] for c in extracted["core"]] == ["对方极度恐高，不要提议高处的活动"]

    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert all(m["extracted_to_long"] for m in files["mid_term"])
    long_term = {e["title"]: e for e in files["long_term"]}
    assert long_term["恐高"]["key_points"] == ["极度恐高", "坐缆车会发抖"]
    assert long_term["恐高"]["detail_file"] == "2026-03-15_恐高.json"
    assert long_term["恐高"]["time_precision"] == "day"
    detail = person.get(f"/api/memory/{ai['id']}/files/long_term_details/2026-03-15_恐高.json").json()
    assert detail == {
        "title": "恐高",
        "detail_content": "对方坦白自己极度恐高",
        "emotion_tags": {"basic_emotion": "关心", "scene": "求助", "atmosphere": "平和"},
        "source_mid_ids": [mids[1]["id"]],
    }
    core = files["core"]
    assert [(c["content"], c["importance"], c["category"], c["source"]) for c in core] == [
        ("对方极度恐高，不要提议高处的活动", 9, "禁忌", "ai")
    ]

    context = person.get(f"/api/memory/{ai['id']}", params={"q": "还记得我恐高的事吗"}).json()
    names = [s["name"] for s in context["sections"]]
    # the per-turn block's two sections come before the message (issue 27)
    assert names == [
        "system",
        "core",
        "mid_term",
        "long_term",
        "long_term_details",
        "short_term",
        "turn",
        "turn_memory",
        "current_message",
    ]
    text = {s["name"]: s["text"] for s in context["sections"]}
    assert "对方极度恐高，不要提议高处的活动" in text["core"]
    # index lines carry a memory's date and key points (its title is left out since issue 16)
    assert "2026-03-16 想成为作家；在写第一部小说" in text["long_term"] and "极度恐高" in text["long_term"]
    assert "对方坦白自己极度恐高" in text["long_term_details"]
    assert all(s["tokens"] >= 0 for s in context["sections"]) and context["total_tokens"] > 0


def test_the_person_corrects_and_deletes_memories(app, person, ai, fake_llm) -> None:
    fake_llm.script("qwen-plus", summary("聊了猫"))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我养了一只猫"})
    person.post(f"/api/memory/{ai['id']}/compress")
    mid = person.get(f"/api/memory/{ai['id']}/files").json()["mid_term"][0]
    edited = person.put(f"/api/memory/{ai['id']}/mid_term", json={"id": mid["id"], "summary": "聊了家里的橘猫"})
    assert edited.status_code == 200 and edited.json()["memory"]["summary"] == "聊了家里的橘猫"
    bad = person.put(
        f"/api/memory/{ai['id']}/mid_term", json={"id": mid["id"], "emotion_tags": {**TAGS, "basic_emotion": "狂喜"}}
    )
    assert bad.status_code == 422
    added = person.put(f"/api/memory/{ai['id']}/core", json={"content": "喜欢被叫小名", "importance": 9})
    assert added.status_code == 200 and added.json()["memory"]["source"] == "person"
    core_id = added.json()["memory"]["id"]
    assert person.put(f"/api/memory/{ai['id']}/core", json={"id": core_id, "delete": True}).status_code == 200
    assert person.put(f"/api/memory/{ai['id']}/mid_term", json={"id": mid["id"], "delete": True}).status_code == 200
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert files["mid_term"] == [] and files["core"] == []
    assert person.put(f"/api/memory/{ai['id']}/core", json={"id": "core_x", "delete": True}).status_code == 404
    assert person.put(f"/api/memory/{ai['id']}/mid_term", json={"id": "x", "hack": 1}).status_code == 422
    assert person.put(f"/api/memory/{ai['id']}/dreams", json={"id": "x"}).status_code == 422


def test_compress_and_extract_say_what_they_produced(person, ai, fake_llm) -> None:
    assert person.post(f"/api/memory/{ai['id']}/compress").json() == {"mid_term": []}
    fake_llm.script("qwen-plus", summary("打了个招呼"))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "你好呀，今天过得怎么样"})
    produced = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    assert [m["summary"] for m in produced] == ["打了个招呼"]
    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "初次见面",
                        "key_points": ["打招呼"],
                        "detail_content": "第一次聊天",
                        "source_mid_ids": [produced[0]["id"]],
                    }
                ]
            }
        ),
    )
    result = person.post(f"/api/memory/{ai['id']}/extract").json()
    assert [e["title"] for e in result["long_term"]] == ["初次见面"] and result["degraded"] is False


def test_deleting_the_ai_user_erases_every_tier_and_the_documents(app, person, ai, fake_llm) -> None:
    fake_llm.script("qwen-plus", summary("聊了猫"))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我养了一只猫"})
    mid = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"][0]
    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "猫",
                        "key_points": ["养猫"],
                        "detail_content": "对方养了一只猫",
                        "source_mid_ids": [mid["id"]],
                    }
                ]
            }
        ),
    )
    person.post(f"/api/memory/{ai['id']}/extract")
    person.put(f"/api/memory/{ai['id']}/core", json={"content": "喜欢猫", "importance": 9})
    blobs = app.state.runtime.blobs
    assert len(blobs.list("pairs/")) == 1
    erased = person.delete(f"/api/ai-users/{ai['id']}").json()["erased"]
    assert erased["blobs"] == 1 and erased["items"] >= 5  # log message, mid, long, core, states
    assert blobs.list("pairs/") == []
    store = app.state.runtime.store
    pair_pk = f"PAIR#{person.id}#{ai['id']}"
    assert all(store.query(pk).items == [] for pk in (pair_pk, pair_pk + "#MSG", pair_pk + "#SHORT"))


def test_unfriending_with_forget_erases_the_pair_but_keeps_the_character(app, person, ai, fake_llm) -> None:
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "你好"})
    removed = person.delete(f"/api/friends/{ai['id']}", params={"forget": "true"}).json()
    assert removed["forgot"] is True and removed["erased"]["items"] >= 2
    assert person.get(f"/api/ai-users/{ai['id']}").status_code == 200
    person.post(f"/api/friends/{ai['id']}")
    assert person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"] == []


def test_the_context_view_shows_the_pairs_quality_figures_against_the_spec_targets(tmp_path, clock, rng) -> None:
    from fastapi.testclient import TestClient

    from dreamchat.api.app import create_app
    from dreamchat.config import Settings
    from dreamchat.wiring import build_runtime
    from tests.api.conftest import register
    from tests.fakes.fake_llm import FakeLLMServer, Reply

    with FakeLLMServer() as llm:
        settings = Settings(
            data_dir=tmp_path / "q",
            run_scheduler=False,
            llm_base_url=llm.base_url,
            llm_api_key="k",
            llm_max_retries=0,
            quality_sample_share=1.0,
        )
        app = create_app(settings, build_runtime(settings, clock=clock, random=rng))
        with TestClient(app) as client:
            person = register(client, "quinn")
            ai = person.create_ai_user()
            empty = person.get(f"/api/memory/{ai['id']}").json()["quality"]
            person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "我们周末去海边吧，拜拜"})
            llm.script(
                "qwen-plus",
                Reply.json(
                    {
                        "summary": "约好周末去海边",
                        "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
                    }
                ),
            )
            llm.script("deepseek-chat", Reply.json({"score": 70, "reason": "漏了时间"}))
            app.state.runtime.bus.drain()
            quality = person.get(f"/api/memory/{ai['id']}").json()["quality"]
    assert empty["completeness"] == {"value": None, "runs": 0, "target": 0.8}
    assert quality["completeness"] == {"value": 0.7, "runs": 1, "target": 0.8}
    assert quality["compression_ratio"]["runs"] == 1 and quality["compression_ratio"]["target"] == 0.7
    assert quality["key_point_accuracy"]["value"] is None and quality["extraction_rate"]["runs"] == 0


# a 40-character topic (issue 35 §3): the spec's 压缩率 ≥ 70 % leaves its summary 12 characters
FORTY = ["下午打了会儿羽毛球，出了一身汗", "刚下班，地铁上人好多", "周末打算去爬山", "晚饭做了番茄炒蛋"]


def save(person, ai, *lines: str) -> None:
    for line in lines:
        assert person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": line}).status_code == 201


def test_a_summary_longer_than_its_share_of_the_topic_is_cut_to_it_and_marked(person, ai, fake_llm) -> None:
    """The attack: a model answered a 40-character topic with 5,000 characters, stored as such
    (`compression_ratio` −132)."""
    assert sum(map(len, FORTY)) == 40
    fake_llm.script("qwen-plus", summary("聊了运动和晚饭。" * 625))  # 5,000 characters
    save(person, ai, *FORTY)

    [mid] = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]

    assert mid["summary"] == "聊了运动和晚饭。"  # cut at a sentence end within 12 characters
    assert mid["compression_ratio"] >= 0.7 and mid["summary_cut"] is True
    asked = json.dumps(fake_llm.requests_for("qwen-plus")[0].messages, ensure_ascii=False)
    assert "summary 不超过 12 个字" in asked  # the model was told its budget
    [stored] = person.get(f"/api/memory/{ai['id']}/files").json()["mid_term"]
    assert (stored["summary"], stored["summary_cut"]) == (mid["summary"], True)
    quality = person.get(f"/api/memory/{ai['id']}", params={"q": "运动"}).json()["quality"]
    assert quality["compression_ratio"]["value"] >= 0.7
    # the person's own words are theirs: no longer a cut summary
    edited = person.put(f"/api/memory/{ai['id']}/mid_term", json={"id": mid["id"], "summary": "打了羽毛球，周末爬山"})
    assert edited.json()["memory"]["summary_cut"] is False


def test_the_bound_is_the_topics_share_not_a_fixed_cap(person, ai, fake_llm) -> None:
    fitting = "聊了运动、下班和晚饭"  # 10 characters: within the 40-character topic's 12
    fake_llm.script("qwen-plus", summary(fitting), summary("那天聊了很多很多事情。" * 500))
    save(person, ai, *FORTY)
    [kept] = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    assert (kept["summary"], kept["summary_cut"]) == (fitting, False)

    long_topic = [f"第{n}天：" + "，".join(FORTY) for n in range(1, 7)]  # 6 × 47 characters
    save(person, ai, *long_topic)
    [cut] = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    chars = sum(map(len, long_topic))
    assert cut["summary_cut"] is True and 12 < len(cut["summary"]) <= int(chars * 0.3)
    assert cut["compression_ratio"] >= 0.7


def test_extract_now_stores_every_memory_the_model_draws_from_one_topic(person, ai, fake_llm) -> None:
    """The attack (issue 35 §1): three memories for one topic came back as "1 条长期记忆"; the
    birthday and the dog's name were dropped, and in no tier the context reads."""
    fake_llm.script("qwen-plus", summary("生日五月三号，狗叫旺财"))
    save(person, ai, *FORTY)
    [mid] = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    facts = {"工作": "在杭州做设计师", "生日": "生日是五月三号", "宠物": "家里的狗叫旺财"}
    memories = [
        {"title": title, "key_points": [fact], "detail_content": fact, "source_mid_ids": [mid["id"]]}
        for title, fact in facts.items()
    ]
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": memories}))
    fake_llm.script(CHAT_MODEL, Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"}))

    result = person.post(f"/api/memory/{ai['id']}/extract").json()

    assert [e["title"] for e in result["long_term"]] == list(facts)  # 3 条长期记忆
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert sorted(p for e in files["long_term"] for p in e["key_points"]) == sorted(facts.values())
    assert [m["extracted_to_long"] for m in files["mid_term"]] == [True]
    context = person.get(f"/api/memory/{ai['id']}", params={"q": "我的狗叫什么"}).json()
    text = "\n".join(s["text"] for s in context["sections"])
    assert all(fact in text for fact in facts.values())
