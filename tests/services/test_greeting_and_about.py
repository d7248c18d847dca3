"""关于我 reaches every AI friend's prompt as the person's own words."""

from __future__ import annotations

from dreamchat.domain.models import PairId
from dreamchat.services.container import build_services


def test_about_me_is_in_every_ai_friends_prompt_as_the_persons_words(runtime) -> None:
    services = build_services(runtime)
    first = services.ai_users.create("acc_person", {"name": "小梦", "base_soul": "温柔的朋友"})
    second = services.ai_users.create("acc_person", {"name": "阿青", "base_soul": "爱开玩笑"})
    other = services.ai_users.create("acc_other", {"name": "路人"})
    services.profiles.set_about_me("acc_person", "我叫小林，在杭州做设计，对芒果过敏")

    for ai_user in (first, second):
        pair = PairId(account_id="acc_person", ai_user_id=ai_user.id)
        system = services.context.context(pair, ai_user, "你好", "【指令】").messages[0]["content"]
        assert (
            "【关于对方】对方写给你的自我介绍（其中的“我”指对方，这是你对对方已经知道的事）：「我叫小林，在杭州做设计，对芒果过敏」"
            in system
        )
        assert system.index(ai_user.base_soul) < system.index("【关于对方】") < system.index("【指令】")

    # another account's AI friend knows nothing of it; an empty profile adds nothing
    pair = PairId(account_id="acc_other", ai_user_id=other.id)
    assert "关于对方" not in services.context.context(pair, other, "你好", "【指令】").messages[0]["content"]
    services.profiles.set_about_me("acc_person", "")
    pair = PairId(account_id="acc_person", ai_user_id=first.id)
    assert "关于对方" not in services.context.context(pair, first, "你好", "【指令】").messages[0]["content"]
