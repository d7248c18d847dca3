"""The person comes first: recognising a crisis in what the person writes, and where to send them.

`crisis_in(text)` is True when a message states suicidal intent or ideation, or self-harm, in Chinese
(simplified or traditional) or English. It reads two things over a normalised text: a maintained lexicon of
phrase families (`PHRASES`), never single characters, and under them a general rule (`speaks_of_harm`).
The text is normalised (`normalise`): NFKC, casefold, zero-width characters removed,
the traditional characters the lexicon uses mapped to simplified ones, spaces and dots between Chinese
characters dropped (我 不 想 活 了, 自.杀), spelt-out letters joined (k i l l), and common disguises and typos
read as what they hide (zi sha, 想紫砂, 想自沙, 想 s 了 (not 想 s 你了), 割婉, unalive, kms, su1cide, k!ll, wnt, wana,
disapear).

Besides the plain words (想死, 不想活了, 自杀, 轻生, "kill myself", "suicidal"), the lexicon reads families
of indirect but explicit statements: not wanting to wake or to hold on to life (不想醒来了, 活着太累了不想撑了,
想永远睡过去, 想解脱); a method or a height as intent (今晚想去天台 as the clause's last words, 站在楼顶不想下去,
想从窗户跳出去, 想开煤气, 跳崖, 卧轨); the means at hand (绳子准备好了, 药都攒好了, 买了炭今晚就烧, "the rope
ready", a noose); pills swallowed (安眠药吃了一整瓶, 吞了一把药, "a bottle of pills"); cutting or burning oneself
(手腕又划了, 又cut了, 用烟头烫自己, "cutting again", "sh urges"); one's own death imagined (我死了你们会难过吗,
我不在了以后, "nobody would miss me if I was gone"); being a burden or worthless (我是大家的负担, 我不配活着,
"I'm a burden"); farewells (再见了这个世界, 永别了, 下辈子不要做人了, 对不起大家我先走了, 最后一次跟你说话,
遗书, 后事安排好了, "a goodbye note", "this is my last message"); "I want it all to end", "I'd rather be
dead", "I don't see the point anymore". Issue 23's categories have families too: a farewell tied to a time or
to no longer being here (今晚过后就再也不会麻烦你们了, 明天你们就见不到我了, 这是我最后一次发朋友圈了, a letter
left to be read tomorrow morning, a will written at twenty, 我决定了周五晚上就走, "I won't be here tomorrow",
"by the time you read this I'll be gone", "tonight is my last night"); the world and the others without me
(这个世界没有我也一样转, 要是我走了你会记得我吗: 走 as dying when asked about being remembered, "everyone would
be better off if I wasn't here"); sleep without waking in every wording (睡下去就别再醒了, 睡过去不再醒来, "go to
sleep and not wake up"); self-harm in more verbs and body parts (抠出血, 撞墙撞到流血, 烟头烫手臂, 又划了新的,
割哪里流血最快, "scratching my arms until they bleed", "burned my arm with a lighter", "the knife in my hand",
"going to use it on myself"); a method weighed (用哪种方式离开比较不会给家人添麻烦, 吃什么药可以安静地走, "the most
painless way to go", "how many pills it takes", "driving into oncoming traffic"); being at the water or a
height with intent (我站在江边水很深, 一个人去河边不打算回来了, "I'm at the bridge right now"); a plan and its day
(今天就是我计划离开的日子, 等家人睡着以后吃药, 等室友出门了我就动手, "I have a plan to end things this
weekend", "I've decided tonight is the night"); and more of the same (少了我这个累赘, 永远别叫醒我,
每次失眠我就拿小刀在手臂上划, 吃完这些药就能结束了, 永别 as a clause's last word, "my family won't have to deal with
me much longer", "end everything after my exam"; round 3: "I'm not going to be around much longer", not beside a
contract, a move or tonight). Each family has its everyday counterparts written beside it (想去天台看星星, 买了炭周末烧烤,
胳膊被猫划了, 又cut了视频, 我先走了明天见, 跳崖式降价, "end it with him", "rather die than wear crocs",
"cutting corners"; 明天你们就见不到我了我去出差, 这是我今年最后一次发朋友圈了, 这是我最后一次跟你说别迟到,
我决定了下周就走去上海工作, 切洋葱切到手, 被猫抓了还在流血, 一个人去河边钓鱼, 哪种方式离开公司比较体面,
"I won't be here tomorrow, day off", "a note for my roommate about the rent", "the knife in my hand to carve
the turkey", "I hope I don't wake up late").

The general rule is the net under the families, so that a phrasing no family foresaw is caught by
construction. A clause fires when
- it holds a word of death or self-harm (`HARMS`): 死, 自杀, 轻生, 结束自己, 把自己了结掉, 离开这个世界, 另一个世界, 遗言, 遗书,
  跳楼, 上吊, 烧炭, 割腕, 跳下去, at a roof's edge, pills in a measure only an overdose needs (吃了一整瓶药, 攒药),
  割/划 of one's own body, 刀片, a wound again (伤口又多了几道), 活着的最后一天, 我不在了, 和这个世界说再见, 永远睡着;
  die, dead, death, suicide, overdose, noose, wrists cut, "jump off the bridge", "in front of a train",
  "a bullet in my head", "never wake up", "after I'm gone", "goodbye forever", "I have a plan and I'll do it";
- the word is not part of an everyday idiom (`IDIOMS_ZH`, `IDIOMS_EN`, a maintained list of shapes that never
  mean it): degree words before 死 (累死, 笑死, 气死, 卷死, 疼死了: pain as a degree word, while 疼得想死 fires),
  想死你了, set words (死党, 死机, 死线, 死磕, 死心, 作死, 社死, 猝死, 死了都要爱), a phone, a plant or a bug that
  died, a game's deaths, a title in 《》, 跳楼价, 自杀小队 and 自杀预防; "killing it", "to die for", "dying to",
  "dead tired", "I'm dead 😂", "bored to death", "scared me (half) to death", "die of embarrassment", "I'm gonna
  die if I don't eat", "my phone died", 等我死了再说 (not in my lifetime), 真的要死了 at a clause's start (累成狗，
  真的要死了), a title in quotes after what it names (the album 'Goodbye Forever'), "my ex is dead to me", 断舍离;
  death told as done beside a laugh or after exertion (我不活了哈哈哈哈, 跑了十公里 我宣布我已经死了, "i'm dead
  after leg day 😂"; a wish, 想死 or 不想活了哈哈, is never taken out); since round 3, a task or a person killing
  me (我要被作业杀死了, 要被期末报告逼死了, 被老板折磨死了; 被逼得想死 still fires), 笑到die, "my phone is about to
  die", "so bored I could die", "I'd rather die than" an object (not "than keep living") and 让我穿那条裙子 我宁愿去死
  (wearing, eating, a chore asked of me; 与其这样活着我宁愿去死 fires), 宁愿去死 or "gonna die if I fail this test"
  beside a laugh, a sims game's deaths and a game's drive into traffic. 杀青, 秒杀, 割肉, 划算,
  划船, "deadline", "cutting edge" hold no word of it at all;
- the word is not denied right before it (我不想死, 我没有想过自杀, "I don't want to die") nor owned by someone
  else (外公的遗言, 奶奶临终前的遗言, 主角自杀了, "his death"; 我们历史课 is a class, not the speaker), nor, in a story,
  a role's (女主最后死了, 剧本杀里我演的角色最后上吊了, 演一个自杀的诗人, "the main character died": 我 nearby is the
  viewer or the actor; a classic work or a passage of one is a story too, and a name right before 死, with no 我
  just before, is a role: 看三国 诸葛亮死的时候我哭了, 关羽死的那段, while 我也想像林黛玉一样死 and 在看电影 我一个人
  偷偷割腕 fire), and others whom one's death would burden are not its subject (怎么死才不会连累别人);
- and the clause speaks of the person: a first person in it (我, 老子, "I", "my"; 我妈 and "my friend" are
  someone else), else no one else named in it, and then a first person in the sentence, else no one else and
  no story in the sentence, and either a Chinese clause (it needs no subject: 怎么死比较不痛, 割腕会不会很痛),
  an English one that starts as a subjectless clause or a question ("planning to jump off the bridge",
  "how many pills does it take to die"), or words that imply the speaker (遗言, "this is goodbye").
So the rule stays quiet on news, history and fiction told without a first person, and on someone else's death
or act (他跳楼了, "my brother died"); the families still fire on 他自杀了 and on a friend's words retold
(我同学总说不想活了, "my friend says she wants to die"): grief and worry deserve care too. A lone 死 with no idiom
around it fires.

It runs on every message, so a Chinese phrase is searched only in a sentence holding a Chinese character, an
English one only where there is a Latin letter, and the general rule's words are first looked for in one search:
about 0.8 ms for 200 characters of Chinese, everyday or with a word like 死 in nearly every sentence (0.6 ms for
everyday Chinese before the families of issue 23's categories).

The trade-off, on purpose: a false positive costs a kind check-in, a false negative may cost a life. So
a first-person statement fires even when it may be hyperbole (想死的心都有了, "I'll kill myself if this
meeting runs late", 没有奶茶我活不下去 — words alone cannot tell it from 没钱我活不下去), and only the
clearest everyday uses are let through:
- hyperbole that never says the person wants to die: 笑死我了, 累死了, 气死我了, 想死你了 (missing
  someone), "killing it", "I'm dead 😂", "to die for";
- bodily degree words before 想死 (累得想死, 热到想死, 困得想死, 尴尬得想死, 无聊到想死). Pressure and
  pain are not among them: 作业多到想死, 压力大到想死, 疼得想死 fire, because academic pressure is a
  leading stressor among young people who die by suicide, and the check-in costs little;
- a threat or an exclamation aimed at someone else (你是不是想死啊, 你去死吧, "my mom is going to kill me");
  期末考试我真的会死 and 我就死给他看 fire (pressure, as above; the last may be meant), and so does a question
  about dying with anyone's "you" ("what happens when you die", "how deep do you have to cut");
- a denial in the same clause (我没有想自杀, "I would never kill myself", "I'm not suicidal"); a denial
  covers only its own phrase, so 我没有想自杀，只是觉得活着没意思 still fires;
- an act told of in a film, a book or the news, in a sentence with no first person (电影里的人自杀了,
  "the character attempts suicide in the show"), or a role's act in a story with a first person nearby
  (我看的电影里主角自杀了, 剧本杀里我演的角色最后自杀了); the person's own wish beside a story fires
  (看完这部剧我也想像女主一样去死), and so does a friend's or stranger's act without a story
  (他自杀了: grief deserves care too);
- a joke told of oneself as already dead, beside a laugh or after exertion (我不活了哈哈哈哈, 我宣布我已经死了
  after a run, "my ex is dead to me 🙄"), and a preference or a fear said beside a laugh (让我穿那条裙子 我宁愿去死
  哈哈哈, "gonna die if i fail this test lol"); 不想活了 beside a laugh still fires, and so do 我宁愿去死 and
  期末考试我真的会死 with no laugh and no object;
- passive hyperbole: a task or a person that kills me (我要被作业杀死了, 被期末报告逼死了, 被这道题难死了), while
  the wish it drives to still fires (被逼得想死, 作业多到我想死: pressure, as above).
Not recognised on purpose: the pinyin "xiang si" (also 相思), "kys" (aimed at someone else), 活着好累,
撑不下去了 without 活着, "I can't do this anymore" and other weariness that states no wish to die; many pills
taken without a measure that only an overdose reaches (已经吃了很多药: as 感冒了吃了好多药 says of a cold);
leaving without a word of finality or a decision (周五就走 may be a move, while 我决定了周五晚上就走 and
就走了，不会再回来 fire unless a trip, a job or a city is named); 我先走了 without an apology, 想消失几天,
尴尬得想消失, 想走了 (unless after 不想再坚持了), 我走了以后 (may be leaving a room) unless asked whether
someone will remember or miss me; a date set with no word of what for ("I've set the date", 日子定好了 fires
unless a wedding, a move or a trip is named); a weapon bought in one sentence with no use in the next ("I
bought a gun." alone; "I'm going to use it on myself" fires). The chat model may still see what the lexicon misses and say
so with `CRISIS_MARKER`.

The resources: `DEFAULT_RESOURCES` per locale, each number with where it was checked; `resources_for`
picks a locale's entries, falls back by language, and always ends with the generic entry;
`parse_resources` reads an operator's table (JSON-shaped, as from an environment variable).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

CRISIS_MARKER = "[CRISIS]"
# the marker as a model may write it: any case, spaces inside, ASCII or full-width brackets and letters
_MARKER = re.compile(r"[\[［【〔]\s*(?:crisis|ｃｒｉｓｉｓ)\s*[\]］】〕]", re.IGNORECASE)

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

# Traditional forms of the characters the lexicon and its exceptions use (NFKC leaves them alone).
_SIMPLIFIED = str.maketrans(
    "殺殘傷結輕盡斷這個麼為會們讓開離裡裏從無劃準備決繼續覺說對樣嗎幹圖應該來過還後別點農敵燒"
    "絕電視劇報導戲遊紀錄聞課歷詞聽熱餓睏撐曬癢擠饞尷夢聯構設預隨機記黨親寶於悶攢鬆淨靜脫經願"
    "價賣倉繩氣嚇實勁頭義隊關寫論尋覓邊媽樓藥遺書沒著"
    "頂臺陽橋負擔贅輩見煙燙幫顧貓難發現錯誤條訊話給車鯊夠齊剛紙欄長閉堅連煩擾買針規圓時間幾復讀檔東爺壓刪牆魚營鍋釣蟲莊樹飯爐麵極傘潛髮麥雙誰筆萬資體膚兒壺丟爲樂餘衝辦動區臥變喫寵巖師並牀當徹懸懶戶術潑竈爛畫暢禍種積窩簡縱線絡臉膩計試謀費賴躍軌遠鍾錢鐵鬧陣頻風飛馬乾説門庫註銷槍彈險賠牽掛託轉謝層",
    "杀残伤结轻尽断这个么为会们让开离里里从无划准备决继续觉说对样吗干图应该来过还后别点农敌烧"
    "绝电视剧报导戏游纪录闻课历词听热饿困撑晒痒挤馋尴梦联构设预随机记党亲宝于闷攒松净静脱经愿"
    "价卖仓绳气吓实劲头义队关写论寻觅边妈楼药遗书没着"
    "顶台阳桥负担赘辈见烟烫帮顾猫难发现错误条讯话给车鲨够齐刚纸栏长闭坚连烦扰买针规圆时间几复读档东爷压删墙鱼营锅钓虫庄树饭炉面极伞潜发麦双谁笔万资体肤儿壶丢为乐余冲办动区卧变吃宠岩师并床当彻悬懒户术泼灶烂画畅祸种积窝简纵线络脸腻计试谋费赖跃轨远钟钱铁闹阵频风飞马干说门库注销枪弹险赔牵挂托转谢层",
)
_QUOTES = str.maketrans("\u2018\u2019\u02bc\u2032`", "'''''")
# One regex pass finds the few characters to map: much faster than str.translate looking up every character.
_TO_PLAIN = {chr(k): chr(v) for k, v in {**_SIMPLIFIED, **_QUOTES}.items() if isinstance(v, int)}
_MAPPED = re.compile("[" + re.escape("".join(_TO_PLAIN)) + "]")
_LEET_I = re.compile(r"(?<=[a-z])[1!|](?=[a-z])")  # k!ll, k1ll, su1cide: before "!" can end a sentence
_SPELT_OUT = re.compile(r"(?<![a-z])(?:[a-z][ .\-_*]){2,}[a-z](?![a-z])")  # k i l l, d.i.e
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[\s.\-_*·•/|~^]+(?=[{_CJK}])")  # 我 不 想 活 了, 自.杀
_UNALIVE = {"unalive": "kill", "unaliving": "killing", "unalived": "killed"}
# A disguise and what it stands for. "zisha" is also a teapot clay, so not before teapot or pot.
_DISGUISES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"(?<![a-z])zi[1-4]?[\s\-_.]?sha[1-4]?(?![a-z])(?!\s?(?:teapot|pot|clay|ware|壶))"), "自杀"),
    (re.compile(r"自\s?sha[1-4]?(?![a-z])|(?<![a-z])zi[1-4]?\s?杀"), "自杀"),
    # 紫砂, 自鲨: slang for 自杀 after a verb of intent (想紫砂, 要紫砂了), never before 壶 or 杯 (a teapot)
    (re.compile(r"(?<=[想要去会算备])(?:紫砂|自鲨|自沙|自刹|自煞)(?![壶杯器陶泥锅茶煲罐盆])"), "自杀"),
    # 想 s 了: s for 死 after a verb of wanting, alone (not 想 s 你了: missing someone, nor s码, 15s)
    (re.compile(r"(?<=[想要去])\s?s\s?(?![a-z0-9'])(?=了|吧|啊|$|[,。!?\s])"), "死"),
    (re.compile(r"割[婉惋挽]"), "割腕"),  # a typo of 割腕
    # typos of the words the lexicon reads: wnt, wana, disapear
    (re.compile(r"(?<![a-z])(?:wnt|wnat|wan|whant)(?=\s(?:to|2)(?![a-z]))"), "want"),
    (re.compile(r"(?<![a-z])(?:wana|wnna|wannna)(?![a-z])"), "wanna"),
    (
        re.compile(r"(?<![a-z])(?:disapear|dissapear|dissappear|disappeer|dissapper|disapper)(?=s|ed|ing|(?![a-z]))"),
        "disappear",
    ),
    (re.compile(r"(?<![a-z])zi[1-4]?\s?can[1-4]?(?![a-z])"), "自残"),
    (re.compile(r"(?<![a-z])ge[1-4]?\s?wan[1-4]?(?![a-z])"), "割腕"),
    (re.compile(r"(?<![a-z])bu\s?xiang\s?huo\s?le(?![a-z])"), "不想活了"),
    (re.compile(r"(?<![a-z])unaliv(?:e|ing|ed)(?![a-z])"), lambda m: _UNALIVE[m.group()]),
    (re.compile(r"(?<![a-z0-9.])(?<!\d\s)kms(?![a-z])"), "kill myself"),  # not "300 kms" (kilometres)
    (
        re.compile(r"(?<![a-z])(?:s[u*][i1!*]c[i1!*]d|sewer\s?slid|sui\scid)(?:[e3]|al)(?![a-z])"),
        lambda m: _suicide(m.group()),
    ),
)


def _suicide(disguised: str) -> str:
    return "suicidal" if disguised.endswith("al") else "suicide"


def normalise(text: str) -> str:
    """The text as the lexicon reads it (see the module docstring)."""
    text = _MAPPED.sub(lambda m: _TO_PLAIN[m.group()], unicodedata.normalize("NFKC", text).casefold())
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")  # zero-width spaces, joiners
    text = _LEET_I.sub("i", re.sub(r"\s+", " ", text))
    text = _SPELT_OUT.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group()), text)
    for disguise, meaning in _DISGUISES:
        text = disguise.sub(meaning, text)
    return _CJK_GAP.sub("", text)


@dataclass(frozen=True)
class Phrase:
    """One entry of the lexicon. `unless`: the clause around the match takes it back (a denial, a
    joke's set form). `not_in_sentence`: the same, read over the whole sentence (a barbecue for 炭, a
    game for 我死了以后). `reported`: the words can tell of someone else's act (自杀, suicide), so a
    sentence about a film, a book or the news with no first person does not fire. `english`: an English
    phrase, searched only in a sentence holding a Latin letter (a Chinese one only where there is a Chinese
    character): each pattern is written in its own language, so the screen never changes a verdict."""

    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None = None
    reported: bool = False
    not_in_sentence: re.Pattern[str] | None = None
    english: bool = False

    def found_in(self, sentence: str) -> bool:
        if not self.pattern.search(sentence):  # most sentences: one search, nothing more
            return False
        if self.not_in_sentence and self.not_in_sentence.search(sentence):
            return False
        for match in self.pattern.finditer(sentence):
            if self.unless and self.unless.search(_clause_around(sentence, match)):
                continue
            if self.reported and (_told_of_others(sentence) or _role_owns(sentence, match.start())):
                continue
            return True
        return False


def _zh(
    pattern: str,
    unless: str | None = None,
    *,
    reported: bool = False,
    not_in_sentence: str | None = None,
    english: bool = False,
) -> Phrase:
    return Phrase(
        re.compile(pattern),
        re.compile(unless) if unless else None,
        reported,
        re.compile(not_in_sentence) if not_in_sentence else None,
        english,
    )


def _en(
    pattern: str, unless: str | None = None, *, reported: bool = False, not_in_sentence: str | None = None
) -> Phrase:
    """English words stand between non-letters: Chinese characters count as letters for \\b."""
    return _zh(
        rf"(?<![a-z])(?:{pattern})(?![a-z])", unless, reported=reported, not_in_sentence=not_in_sentence, english=True
    )


_KILL = r"k[i1!|*y]?[l1|!]{1,2}(?:ing|in'?)?"
_MYSELF = r"(?:my\s?s[e3]lf|meself|myslef|mysefl)"
_DIE = r"d[i1!*]e"
_NEVER = r"(?:never|won'?t|will\snot|wouldn'?t|would\snot|not\sgoing\sto|not\sgonna|n'?t\sgonna)\s(?:ever\s|actually\s|really\s)?"
_ACCIDENT = (
    r"accident|by\smistake|shaving|chopping|cooking|kitchen|slipped|fell|tripped|gym|work(?:ing)?\s?out|lifting|playing|paper|stubbed|stove|oven"
    r"|pan|coffee|tea|iron|curling|soup|hot\s|boiling|steam|toast|grill|bbq|kettle|bak(?:e|ing)|sun"
    r"|on\s(?:a|the|an)\s(?:can|tin|lid|nail|glass|box|fence|edge|envelope)|opening"
)
# 想死 after a bodily degree word is hyperbole (累得想死); after pressure or pain it is not (see above).
_BODILY = "[累热冷饿困渴撑晒痒吵挤堵馋酸]"
# a laugh that makes the death words around it a joke (我不活了哈哈哈哈, "i'm dead after leg day 😂")
_LAUGH = r"哈{2,}|嘿嘿|嘻嘻|h{3,}|233|xswl|😂|🤣|😆|😹|(?<![a-z])(?:lol|lmao|lmfao|haha\w*|hehe\w*)(?![a-z])"
# exertion that makes 我已经死了 a figure of speech (跑了十公里 我宣布我已经死了)
_EXERTION = (
    r"跑了|跑完|跑步|夜跑|晨跑|半马|全马|马拉松|公里|爬完|爬了|爬山|徒步|暴走|练完|练腿|健身|撸铁|深蹲|瑜伽|体测|八百米|800米|军训|搬了一天|加班到"
    r"|(?<![a-z])(?:leg\sday|workout|gym|ran|marathon|hike|hiking|spin\sclass|crossfit|cardio|\d+k|\d+\s?miles?)(?![a-z])"
)
# a role in a story: 我演的角色最后自杀了, 女主最后死了, 演一个自杀的诗人 (the act is the character's)
_ROLE_BEFORE = re.compile(
    r"(?:角色|主角|男主|女主|男二|女二|主人公|人物|反派|配角|npc)(?:最后|最终|后来|结局|在结局里?|在第[一二三四五六七八九十百\d]+(?:章|集|幕|回|季)(?:里|中)?|竟然|居然|也|就|还是|已经|都|又|直接|要|会|想|打算|准备|得)*$"
    r"|(?<![a-z])(?:character|protagonist|hero|heroine|villain|mc|lead|npc)\s(?:(?:finally|also|just|actually|literally|eventually|then|kinda)\s)*$"
    r"|(?:演|扮演|饰演|扮|抽到)(?:了|的是|的)?(?:一个|个|一位|一名)?$"
)
# a named role right before 死 in a story (看三国 诸葛亮死的时候我哭了), with no 我 among the six characters before;
# never one's own words (我也想像她一样死, 我一个人偷偷割腕)
_NAMED_ROLE = re.compile(
    r"(?<![想要])[^想要去样般愿会得到也就都再宁可能该必须敢你他她如算脆不还了吧呢啊,\s\x00a-z0-9]{2,4}$"
)
# 想死 inside other words: 梦想, 思想死板, 联想死机, 死心, 死党, 死记硬背; 想死你/我了 is missing someone.
_WANT_TO_DIE = (
    rf"(?<![不没别梦理思感回猜联构设妄幻遐冥畅料假预随你您他她它])(?<!{_BODILY}[得到])(?<!{_BODILY}[得到]我)"
    r"(?<!尴尬[得到])(?<!无聊[得到])想死(?![你您他她它宝亲老大妈爸小家记板机角磕守心党]|我[了啦啊呀]|了你)"
)
_DENIED_ZH = r"(?:没有?|不会|不是|从来?没有?|并没有|不想|不打算|不要|别)(?:想过?|打算|准备|要|去|会|过)?"
_FIRST_PERSON = re.compile(r"我|俺|本人|(?<![a-z])(?:i|i'm|im|i've|i'd|me|my|myself)(?![a-z])")
_STORY = re.compile(
    r"电影|电视剧|剧里|剧中|影视|小说|话剧|舞台剧|音乐剧|剧本杀|剧本|台词|排练|新闻|报道|报纸|漫画|动漫|动画|游戏|角色|主角|男主|女主|历史|课本|课文|文章|歌词|纪录片|书里|书中|热搜|这剧|这部剧|剧情|反派|大结局|番剧|追剧|专辑|歌曲|单曲|播客|《[^》]+》"
    # a classic work and a passage of one: 在看三国演义 关羽死的那段, 读到第十章
    r"|名著|原著|三国|红楼|水浒|西游记|金庸|射雕|神雕|天龙八部|笑傲江湖|倚天|鹿鼎记|哈利波特|那段|那一段|那章|那一章|那一回|那集|那一集|第[一二三四五六七八九十百\d]+(?:章|回|集|卷|季)"
    r"|(?<![a-z])(?:movies?|films?|shows?|series|episodes?|characters?|novels?|books?|news|articles?|games?|songs?|lyrics|documentar(?:y|ies)|anime|manga|albums?|podcasts?)(?![a-z])"
)

# a game, where 我死了 is a character's death
# a title in quotes after what it names: an album 'Goodbye Forever', a song "Suicide Season"
_TITLE_EN = r"(?<![a-z])(?:album|song|track|single|ep|record|film|movie|book|novel|show|series|episode|podcast|playlist|band|poem)s?\s(?:called\s|named\s|titled\s)?['\"“][^'\"”]{1,40}['\"”]"
_GAME = r"游戏|队友|复活|boss|关卡|这关|副本|开局|一局|重开|读档|存档|角色|血条|技能|排位|掉线|npc"
# "if I was gone", "when I die" (not "dead tired", "gone for a week") and who would mind
_GONE = (
    r"(?:if|when|after|once)\si(?:'m|\swas|\swere|\sam)?\s?(?:die|died|dead(?!\s(?:tired|serious|wrong|set|last))"
    r"|gone(?!\s(?:for|on|to|away\sfor|a\s|all))|disappeared|disappear(?!\s(?:for|into|on))|killed\smyself"
    r"|wasn'?t\s(?:here|around|alive)|weren'?t\s(?:here|around|alive))"
)
_MISSED = r"(?:miss|notice|care|cry|sad|better|relieved|happier|funeral|remember|mourn)"

# a trip, a move, a new job: where leaving and not being seen tomorrow are everyday
_TRIP = r"出差|旅行|旅游|出国|留学|搬家|搬|回老家|放假|请假|休假|度假|上班|开会|飞|火车|高铁|机票|车票|一周|几天|两天|三天|退休|辞职|离职|毕业|工作|上海|北京|广州|深圳|城市|出发|玩"
_ACCIDENT_EN = (
    r"(?<![a-z])(?:accident\w*|mistake|shav\w*|chopping|cooking|kitchen|slipped|fell|tripped|gym|workout|paper|onions?|hair|bangs|vegetables?|veggies?"
    r"|fabric|wood|grass|lawn|cake|bread|steak|meat|surgery|glass|budget|carbs?|sugar|costs?|corners|videos?|film|edit\w*|scenes?|line|ties|deal|class|nails)(?![a-z])"
)
_TRIP_EN = r"(?<![a-z])(?:day\soff|off\s(?:tomorrow|work|today)|sick|busy|out\sof\stown|away|leave|pto|dentist|doctor|appointment|trip|flight|flying|vacation|holiday|moving|move|job|company|office|work|shift|camp|conference|travel\w*|abroad|visit\w*|retir\w*|graduat\w*|semester|airport)(?![a-z])"

PHRASES: tuple[Phrase, ...] = (
    # not wanting to live: 不想活了, 不想再活下去, 不愿活; not 不想活成/活在别人眼里/活得这么累/干活/活动
    # (我不活了哈哈哈哈, 我不活了😂: a joke's exclamation, not a wish; 不想活了哈哈 still fires)
    _zh(
        r"不(?:想|要|愿|愿意)再?(?:继续)?活(?![成在得动跃泼络儿])|不活了|活不下去|不想再?活在这个?世界",
        unless=r"(?<![想要愿再续])不活了[^,]*(?:" + _LAUGH + ")",
    ),
    _zh(r"活着(?:真|好|太|也|都|还|实在|真的|根本)*没(?:有)?(?:什么|啥)?(?:意思|意义|劲|盼头|希望|必要)"),
    _zh(
        r"活着(?:还)?有(?:什么|啥)(?:意思|意义|用|盼头)|活着(?:干嘛|干什么|图什么|图啥)|人生(?:真的?|好|太|根本)?没(?:有)?(?:任何)?意义"
    ),
    _zh(
        r"(?:没有|找不到|没了|失去了?)(?:任何)?活下去的(?:理由|意义|勇气|动力|希望|意志)|不知道(?:为什么|为啥|为了什么)(?:还)?要?活(?:着|下去)"
    ),
    _zh(r"活(?:腻|够)(?:了|歪)", unless=r"(?:你|您|他|她)[^我]{0,4}活[腻够]"),  # 你活腻了 is a threat, not a wish
    # wanting to die
    _zh(_WANT_TO_DIE, unless=r"^[^我]*[你您][^我]*$"),  # 你是不是想死啊: a threat to someone else
    _zh(
        r"(?:想|要|我|不如|干脆|还是|让我|叫我)去死|一死了之|寻死|求死|不如死(?![心磕党机板记角])|(?:想|要|希望|真想|好想)(?:就这样)?一睡不醒"
    ),
    _zh(
        r"(?<![累热冷饿困烦气笑吓忙])死(?:了|掉)?(?:算了|拉倒|一了百了)|(?<![累热冷饿困烦气笑吓忙])死(?:了|掉)(?:好了|就好了|才好|也好)"
    ),
    _zh(
        r"(?:再也|永远)(?:都)?不(?:要|想|会)?(?:再)?醒(?:来|过来)?|睡(?:着|过去|下)了?(?:以后|之后)?就(?:别|不要|不|再也不)(?:再)?醒"
    ),
    # ending one's own life
    _zh(r"(?<!预防)(?<!防止)(?<!反)自杀(?![式率]|小队|热线|干预|预防|防治)", unless=_DENIED_ZH + "自杀", reported=True),
    _zh(r"自尽|轻生|自我了断|了断自己|了此残生|上吊(?!绳)", unless=r"三上吊", reported=True),  # 一哭二闹三上吊
    _zh(
        r"了结(?:我)?自己|了结(?:自己|我)的?(?:生命|性命|一生)|结束(?:掉)?(?:自己|我自己|我)的?(?:生命|性命|一生|这一生|人生)"
    ),
    _zh(
        r"(?:想|要|准备|打算|决定)(?:就|去)?结束(?:掉)?这?一切|(?:杀|弄死|搞死|杀死|杀掉)了?我?自己|把自己(?:勒|吊|淹|闷|掐|烧)死"
    ),
    _zh(r"遗书", reported=True),
    # methods, said as intent: 想跳楼 (not 跳楼价, 跳楼机), 从天台跳下去, 喝农药, 攒安眠药
    _zh(
        r"(?:想|要|准备|打算|干脆|真想|好想|差点|快要|去)(?:去)?(?:跳楼|跳河|跳江|跳海|跳桥|卧轨)(?![价机]|大?甩卖|大?清仓)"
    ),
    _zh(r"从(?:楼上|楼顶|天台|阳台|窗户|窗口|窗台|桥上|这里|这儿|这)跳下去|(?:想|要|准备|打算|干脆)烧炭(?!烤)"),
    _zh(r"喝了?(?:农药|百草枯|敌敌畏)|(?:想|要|准备|打算|干脆|去)(?:去)?吃了?老鼠药", reported=True),
    _zh(
        r"(?:攒|囤)了?[^。!?]{0,6}安眠药|(?:想|要|准备|打算)(?:一次)?(?:吃|吞)(?:很多|好多|一堆|一把|一瓶|整瓶|所有)?的?安眠药(?![才就能助睡])"
    ),
    _zh(
        r"(?:吞|吃)(?:了|下|掉)?(?:很多|好多|一堆|一大把|一把|一整瓶|整瓶|一瓶|一整盒|整盒|过量)的?安眠药|(?:吞|吃)(?:了|下|掉)?(?:一整瓶|整瓶|一整盒|整盒|一大把)的?药"
    ),
    _zh(
        r"把(?:所有|全部)的?(?:安眠药|药)(?:全|都|一次性|一口气)?(?:吃|吞)(?:了|掉|光|下去)|把(?:安眠药|药)(?:全部?|一次性|一口气)(?:吃|吞)"
    ),
    # hurting oneself
    _zh(r"自残|自伤", reported=True),
    _zh(r"伤害自己", unless=r"(?:不会|没有?|从来?没有?|并没有)再?去?伤害自己"),
    # 割/划 inside 规划自己, 计划, 切割, 收割 are not cutting oneself; 用刀割肉 is cooking
    _zh(
        r"割腕|(?<![规计策企笔比区刻谋分切收交宰])(?:割|划)(?:伤|破|烂)?了?(?:自己|我的?(?:手腕|手臂|胳膊|大腿|腕))"
        r"|(?:用|拿)(?:刀|刀片|美工刀|小刀|剪刀)(?:割|划)(?:了|伤|破)?(?:自己|我|手|腕|胳膊|大腿)",
        reported=True,
    ),
    # being gone: 想从这个世界消失, 想离开这个世界 (not 尴尬到想原地消失, 想消失几天, 他离开了这个世界)
    _zh(r"(?:想|要|准备|打算|决定)(?:就)?(?:离开|告别)这个?世界|(?:想|要|干脆)一了百了"),
    _zh(r"(?:从|在)这个?世界(?:上|里)?(?:永远|彻底|就此|就这样)?地?消失"),
    _zh(r"(?<!让)(?:想|要|希望)(?:自己)?(?:就这样)?(?:永远|彻底)地?消失(?!几|一|会)|不想(?:再)?存在(?!感)"),
    _zh(
        r"希望(?:我|自己)(?:从来?)?没(?:有)?(?:被)?(?:出生|生下来|来过这个世界)"
        r"|(?:我|自己)(?:就|根本|真的|本来就|压根)*(?:不该|不配|不值得|没资格|不应该)(?:被)?"
        r"(?:出生|生下来|活着|活下去|活在这个?世界(?:上)?|存在|来到这个?世界)"
    ),
    # a burden: 没有我大家会更好, 我死了大家就解脱了
    _zh(
        r"没有?我(?:的话)?[,\s]*(?:大家|你们|你|他们|她们|世界|家人|家里人?|爸妈|父母|所有人|别人|身边的人|他|她)?"
        r"(?:都|会|就|也|反而|可能|应该|一定)*(?:过得|活得)?(?:会)?更(?:美)?(?:好|开心|轻松|幸福)"
    ),
    # a subject is needed: 这关我死了好多次 is a game
    _zh(
        r"我死了(?:以后|之后)?,?(?:大家|你们|你|他们|家人|爸妈|所有人|世界)(?:都|就|会|也)*(?:会)?(?:更)?(?:好|轻松|解脱|开心|清净|清静)"
        r"|死了(?:就|才|也就)(?:能)?(?:解脱|轻松|一了百了|清净)"
    ),
    # not wanting to wake (not 美梦不想醒来, 周末不想醒来赖床), to hold on to life, to sleep for ever
    _zh(r"(?<!舍)不(?:想|要|愿|愿意)(?:再)?醒(?:来|过来)", not_in_sentence=r"梦|赖床|闹钟|懒觉|被窝|起床"),
    _zh(
        r"活(?:着|下去)[^。!?]{0,10}(?:(?:不想|不要|不愿|没力气|没办法|没法|不能)再?(?:撑|坚持|熬)|(?:撑|坚持|熬)不(?:下去|住))"
        r"|(?:不想|不要|不愿)再?(?:撑|坚持|熬)(?:下去)?了?[^。!?]{0,10}活着"
    ),
    _zh(r"(?:想|要|希望|好想|真想|只想)(?:就这样)?(?:永远(?:地)?(?:睡(?:过去|下去|着)|沉睡|闭上眼睛?)|长眠)"),
    _zh(r"(?<![不没])(?:想|要|只想|好想|真想|就想)(?:彻底|永远|早点|快点)?地?解脱(?!出来)"),
    _zh(rf"(?<!{_BODILY}[得到])(?<!尴尬[得到])(?<!无聊[得到])(?<!笑[得到])(?<![不没别])(?:想|好想|真想|只想)去世"),
    # a height: going there as the clause's last words (今晚想去天台, not 想去天台看星星), being there and
    # not wanting to come down, jumping down (not at a pool, a bungee or a ski jump)
    _zh(
        r"(?<![不没别])(?:想|要|准备|打算|决定)(?:今晚|今天|现在|一个人)*(?:去|上|爬上?)(?:天台|楼顶|顶楼|屋顶|天桥|大桥)(?:了|吧|呢|啊)?(?=$|[,、~…])"
    ),
    _zh(
        r"(?:站在|坐在|在|到了|爬上了?|上了)(?:天台|楼顶|顶楼|屋顶|桥上|桥边|窗台|阳台边|栏杆外|崖边|悬崖边)"
        r"[^。!?]{0,14}(?:不想(?:再)?(?:下去|下来|回去|回家|活)|往下跳|跳下去)",
        not_in_sentence=r"拍照|风景|景色|夜景|烟花|旅游|旅行|玩|好美|太美|日出|日落|看星星",
    ),
    _zh(
        r"(?<![不没别敢])(?:想|要|准备|打算|干脆|就要|就想|真想|好想)(?:今晚|今天|现在|马上)?(?:就)?(?:从[^。!?,]{0,8})?"
        r"(?:一跃而下|纵身一跃|跳下去|跳出去|往下跳)",
        not_in_sentence=r"蹦极|跳水|游泳|泳池|跳伞|水里|蹦床|滑雪|跳台|潜水|冲浪|海里",
    ),
    # more methods said as intent: 想跳崖, 想投河, 想开煤气 (not to cook), 想被车撞死 (not 撞死他)
    _zh(
        r"(?<![不没别])(?:想|要|准备|打算|干脆|真想|好想)(?:去)?(?:跳湖|跳崖|跳井|投河|投江|投湖|投海|服毒|安乐死|撞车)(?!式)"
    ),
    _zh(
        r"(?<![不没别])(?:想|要|准备|打算|干脆|真想|好想)(?:去)?(?:开|打开)(?:煤气|燃气|天然气)",
        not_in_sentence=r"做饭|煮|炒|烧水|灶|热水器|饭|面|洗澡",
    ),
    _zh(r"(?:想|要|希望|真想|好想|干脆|恨不得)(?:被[^。!?,]{0,4})?(?:一头)?(?:撞|淹|毒|勒|吊|摔|电)死(?![他她你它])"),
    # the means at hand: 绳子准备好了, 刀片就在手边, 药都攒好了, 买了炭今晚就烧 (not a barbecue, a farm, a move)
    _zh(
        r"(?:刀片|绳子|绳索|麻绳|木?炭|农药|百草枯|老鼠药|安眠药)(?:我|都|已经|也)*(?:准备|买|备|找|攒|囤|藏)(?:好|齐|够)了?"
        r"|(?:刀片|绳子|绳索)(?:就)?(?:在|放在|握在)(?:我的?)?(?:手边|手里|身边|旁边|枕头下|面前)",
        not_in_sentence=r"烧烤|烤|露营|野营|火锅|搬家|晾|跳绳|钓鱼|打包|捆|除草|杀虫|打药|地里|庄稼|果树|菜地|取暖|拔河|攀岩|登山|吊床|秋千|帐篷|风筝|手工",
    ),
    _zh(
        r"攒(?:了|够|好|下)?(?:一?[些点堆瓶盒把]|很多|好多|不少)?的?(?:安眠)?药|药(?:我|都|已经|全)*(?:攒|囤)(?:好|够|齐)了?"
    ),
    _zh(
        r"(?:买|准备|备)(?:了|好)[^。!?]{0,4}炭[^。!?]{0,8}烧(?!烤)",
        not_in_sentence=r"烧烤|烤|火锅|炉|取暖|暖和|羊肉|bbq",
    ),
    # swallowed: 安眠药吃了一整瓶, 刚吞了一把药 (not 吃了好多药还是没好: a cold's many pills)
    _zh(
        r"安眠药(?:我|都|已经|全|全部)*(?:吃|吞)(?:了|下|掉)(?:一整瓶|整瓶|一瓶|一整盒|整盒|一盒|一大把|一把|好多|很多|一堆|全部|所有)"
        r"|药片?(?:我|都|已经)*(?:吃|吞)(?:了|下|掉)(?:一整瓶|整瓶|一整盒|整盒|一大把)"
        r"|吞(?:了|下|掉)(?:一把|一大把|一堆|好多|很多|一瓶|一整瓶|整瓶|几十|十几|一盒)片?的?药",
        reported=True,
    ),
    # cutting, burning: 手腕又划了, 又cut了, 用烟头烫自己, 划了好多道 with blood (not an accident, a screen, a haircut)
    _zh(
        r"(?:手腕|手臂|胳膊|大腿|小臂|腕)上?(?:又|都|已经|全|被我)*(?:划|割)(?:了|伤|破|开|烂)"
        r"|(?<![规计策企笔比区刻谋分切收交宰])(?:割|划)(?:伤|破|烂|开)?了?(?:手腕|手臂|胳膊|大腿|小臂)",
        reported=True,
        not_in_sentence=r"不小心|摔|磕|碰|车祸|猫|狗|树枝|玻璃碎|手术|抽血",
    ),
    _zh(
        r"又(?:在)?(?:cut|割|划)(?:了|伤了)(?=$|[,\s~…])",
        not_in_sentence=r"韭菜|头发|草|麦|稻|双眼皮|包皮|肉|菜|股|视频|片|剧",
    ),
    _zh(
        r"(?:用|拿)(?:刀|刀片|美工刀|小刀|剪刀|圆规|针|烟头|打火机|火)[^。!?,]{0,2}(?:烫|烧|割|划|扎|刺|戳)(?:伤|破|烂)?了?"
        r"(?:自己|我的?(?:手|腕|胳膊|手臂|大腿|身体|皮肤))"
        r"|(?:又|故意|忍不住|偷偷|一直)(?:用[^。!?,]{0,4})?(?:烫|烧|扎|戳|掐|咬|打|撞|抓|刺)(?:伤|破|烂)?了?自己(?!的?脸)",
        reported=True,
    ),
    _zh(
        r"(?:划|割)了(?:好多|很多|好几|几十|十几|几)(?:道|刀|下)[^。!?]{0,12}(?:血|疤|伤口)"
        r"|(?:血|疤|伤口)[^。!?]{0,12}(?:划|割)了(?:好多|很多|好几|几十|十几|几)(?:道|刀|下)",
        not_in_sentence=r"屏幕|手机|车|桌|墙|纸|玻璃|漆|肉|菜|鱼|牛排|猫|狗|不小心|树枝",
    ),
    # after one's death: 我死了你们会难过吗, 我不在了以后帮我照顾猫 (not a game's 我死了以后队友)
    _zh(
        r"我(?:死了|死掉|不在了|消失了)(?:以后|之后|的话)?[^。!?]{0,8}"
        r"(?:会有人|有人会|会不会|谁会|没人会|不会有人|你们会|你会|大家会|他们会|爸妈会|妈妈会|谁还会)"
        r"|我(?:死了|死掉|不在了)(?:以后|之后)|(?:如果|要是|假如|万一|哪天|有一天)我(?:死了|不在了)(?!几|一)|我不在了(?=$|[,~…]|的话)",
        not_in_sentence=_GAME,
    ),
    # a burden: 我是大家的负担, 走了就不拖累你们了 (not 不打扰你们了: a polite goodbye)
    _zh(
        r"(?:我|自己)(?:就|只|只会|一直|真的|简直|感觉|觉得|就像|像)*(?:是|像|成了|变成了?)(?:个|一个)?"
        r"(?:大家|家里|家人|你们|所有人|别人|爸妈|父母|这个家|全家|社会)?的?(?:负担|累赘|拖累|包袱)"
    ),
    _zh(
        r"(?:走了|死了|不在了|消失了|离开了?)(?:以后|之后)?(?:大家|你们)?(?:就|也就)?(?:不会|不用|不再|再也不|再也不会|就不|不)会?再?"
        r"(?:拖累|连累|成为(?:你们|大家|家里)?的?负担)"
    ),
    _zh(r"(?:我|自己)(?:活着|的存在|存在)(?:本身)?(?:就是|只是|就只是)(?:一个|个)?(?:错误|负担|多余|浪费|累赘|笑话)"),
    # disappearing as the clause's last words (好想消失, 好想消失，永远的那种; not 尴尬得想消失, 想消失几天去玩)
    _zh(
        r"(?<![得到])(?:好想|真想|想|只想|就想)(?:就这样)?消失掉?(?=$|[,~…啊吧了]|算了)|消失[,\s]*(?:永远的那种|永远|再也不回来|不再回来)",
        not_in_sentence=r"尴尬|社死|丢人|丢脸|社恐|害羞|羞|几天|一会|一阵|一下|一段时间|旅行|旅游|度假|玩",
    ),
    # farewells: 再见了这个世界, 永别了, 下辈子不要做人了, 对不起大家我先走了 (not 我先走了明天见), 最后一次跟你说话
    _zh(
        r"(?:再见|永别|别了|拜拜|告别)了?[,\s]*(?:这个?|这)?(?:世界|人间|人世)|永别(?:了)?(?=$|[,~…])",
        reported=True,
        not_in_sentence=r"武器",
    ),
    _zh(r"(?:来世|下辈子|来生)(?:再见|再会|见)|(?:下辈子|来世|来生)我?(?:不要|不想|别|再也不)再?(?:做|当)人"),
    _zh(
        r"对不起[^。!?]{0,10}(?:先走了|先走一步|要走了|走了|离开了|先离开了?)(?=$|[,\s~…]|吧|啊)|(?:先走了|要走了|先走一步)[,\s]*对不起",
        not_in_sentence=r"明天|回头|晚点|下次|改天|待会|一会|拜拜|上班|开会|吃饭|睡觉|睡了|88|见|分手|车|飞机|高铁|地铁|有事",
    ),
    _zh(
        r"最后一次(?:跟|和|同|给)(?:你|大家|你们)(?:说话|聊天|聊了?|发消息|留言)|(?:这是)?(?:我的?)?最后(?:一条|的)(?:消息|留言|信息|话)了?(?=$|[,\s~…])",
        not_in_sentence=r"今天|今晚|今日|明天|下周|拉黑|删|再这样|绝交|分手|考试|工作",
    ),
    _zh(r"绝笔(?!之作)", reported=True),
    # affairs put in order: 后事都安排好了, 我的后事 (not a grandparent's funeral), things given away as no longer needed
    _zh(
        r"(?:我的|自己的)后事|后事(?:我|都|已经|也)*(?:安排|交代|准备|写)(?:好|妥)了?",
        not_in_sentence=r"(?:爷爷|奶奶|外公|外婆|姥姥|姥爷|爸|妈|父亲|母亲|老人|叔|伯|姑|舅|姨|他|她|朋友|同事|老师)的?后事",
    ),
    _zh(
        r"(?:东西|所有|遗物|宠物|猫|狗|积蓄|存款|钱)[^。!?]{0,4}(?:都|全|全部)(?:送|给|留给)[^。!?]{0,8}了"
        r"[^。!?]{0,8}(?:以后|反正|再也)?(?:都)?(?:用不上|用不着|不需要)了"
    ),
    # issue 23's families. A farewell tied to a time or to no longer being here (明天你们就见不到我了, 今晚过后就再也
    # 不会麻烦你们了, 这是我最后一次发朋友圈了; not a trip, a retirement, a year's last post)
    _zh(
        r"(?:明天|明早|以后|从今以后|过了今晚|今晚(?:过后|之后|以后)|今天(?:过后|之后))[^。!?]{0,6}(?:就)?(?:再也)?(?:见不到|看不到|找不到)我了"
        r"|(?:再也|永远)不(?:会|用)?再?(?:给[^。!?,]{0,4})?(?:麻烦|添麻烦|打扰|拖累|烦|连累)(?:你们|大家|你|任何人|家里|爸妈)?了(?=$|[,~…])"
        r"|不(?:会|用)再?(?:给[^。!?,]{0,4})?(?:麻烦|添麻烦|打扰|拖累|连累)(?:你们|大家|你|任何人|家里|爸妈)?了[,\s]*(?:再见|永别|保重|谢谢|对不起)"
        r"|(?:过了今晚|今晚(?:过后|之后|以后)|今天(?:过后|之后))[^。!?]{0,4}(?:我)?(?:就)?(?:解脱|不在(?:这里|这儿|这个世界)?|结束)了",
        not_in_sentence=_TRIP + r"|要去|我去|去(?!世|死|另)|回来|回国|见面|假",
    ),
    _zh(
        r"(?:这|这次)?(?:是|大概是|应该是|可能是|就是)?我?(?:人生中?|这辈子)?的?最后一次(?:发|说|道|跟|和|给|对|陪|看|听|写)[^。!?,]{0,8}了(?=$|[,~…])",
        not_in_sentence=_TRIP
        + r"|今年|本周|这周|这个月|年底|新年|跨年|熬夜|比赛|演出|上课|拉黑|删|再这样|绝交|下次|减肥|戒|喝酒|迟到|原谅|以前|上次|那次|去年|年前",
    ),
    # letters left to be read tomorrow morning, a will at twenty, a decision to go with finality
    _zh(
        r"(?:信|纸条|字条|留言|遗嘱)[^。!?]{0,14}(?:明天|明早|早上|醒来|以后|之后)[^。!?]{0,10}(?:看到|发现|读到)"
        r"|(?:写好|写了|立好|立了)(?:了)?(?:我的)?遗嘱|(?<![爷奶公婆姥爸妈父母他她人])(?:的)?遗嘱(?:我|都|已经)*(?:写|立)好了",
        not_in_sentence=r"生日|祝|快乐|惊喜|礼物|房租|表白|情书|感谢|公证|律师|房产|(?:爷爷|奶奶|外公|外婆|爸爸|妈妈|父母|他|她)的遗嘱",
    ),
    _zh(
        r"(?:决定了|想清楚了|想好了|定了)[^。!?]{0,10}就(?:走|离开)(?:了|吧)?(?=$|[,~…])|就(?:走|离开)了?[,\s]*(?:不会再?回(?:来|头)|再也不回来|永远不回来)",
        not_in_sentence=_TRIP,
    ),
    _zh(r"不想再?(?:坚持|撑|熬)(?:下去)?了[^。!?]{0,12}(?:想|要|该)走了(?=$|[,~…])"),
    # the world, the others without me (这个世界没有我也一样转; 要是我走了你会记得我吗: 走 as dying, asked of being remembered)
    _zh(
        r"(?:世界|地球|大家|所有人|你们|日子)[^。!?]{0,6}(?:没有|没了|少了)我(?:一个)?[^。!?]{0,8}(?:照样|一样|照常|照旧|没什么|没区别|无所谓)"
        r"|(?:没有|没了|少了)我(?:一个)?[,\s]*(?:这个)?(?:世界|地球|大家|日子)[^。!?]{0,6}(?:照样|一样|照常|照旧|也会|还是)(?:转|过|继续|运转)",
        not_in_sentence=_TRIP + r"|项目|公司|上班|团队|店里|群里|这周|今天",
    ),
    _zh(
        r"(?:要是|如果|假如|万一|哪天|有一天|等)我(?:就这样|真的|突然)?(?:走了|离开了|不在了|消失了)[^。!?]{0,10}(?:会|还会)[^。!?]{0,4}(?:记得|想起|想念|难过|伤心|哭|在乎|怀念|忘了)"
        r"|我(?:就这样|真的)?(?:走了|不在了)(?:以后|之后)[^。!?]{0,8}(?:还会|会)[^。!?]{0,3}(?:记得|想起|想念|难过|伤心|哭|怀念|忘了)"
        r"|托付[^。!?]{0,20}我(?:走了|不在了|离开了?)(?:以后|之后)",
        not_in_sentence=_TRIP,
    ),
    # sleep without waking, in every wording (睡下去就别再醒了, 睡过去不再醒来, 一觉不醒; not a weekend lie-in)
    _zh(
        r"睡(?:着|过去|下去?|死过去)了?(?:以后|之后)?(?:就)?(?:别|不要|不用|不想|不|再也不用?|永远不|再不)(?:再)?(?:醒|起来)"
        r"|一觉(?:睡)?(?:过去|下去)?(?:就)?(?:再也)?不(?:要|用)?(?:再)?醒|(?:希望|想|但愿)(?:明天|明早|第二天)(?:早上)?(?:不要|别|不会|再也不)(?:再)?醒",
        not_in_sentence=r"梦|赖床|闹钟|懒觉|被窝|周末|自然醒|早八|上班|上课|假期|中午|飞机",
    ),
    # self-harm in more verbs and body parts: 抠出血, 撞墙撞到流血, 烟头烫手臂, 又划了新的, 割哪里流血最快
    # (not a cat's scratch, an itch, a fall, a kitchen cut: 切洋葱切到手)
    _zh(
        r"(?:抠|挠|抓|掐|划|割|咬|打|撞|烫|烧|刺|扎)(?:到|得|出|了)?[^。!?,]{0,4}(?:出血|流血|见血|血肉模糊|淤青|青一块)"
        r"|(?:烟头|打火机|火机)[^。!?]{0,4}(?:烫|烧)[^。!?]{0,2}(?:手臂|胳膊|手腕|手背|手|腿|大腿|皮肤|自己)"
        r"|(?:又|新)(?:划|割)(?:了|的)?(?:新的|一道|几道|一刀|几刀|一下|几下|好几道|口子|伤口|伤)|(?:割|划|切)(?:哪里|哪儿|哪个地方|什么地方|哪)[^。!?]{0,6}(?:流血|出血|血|死|最快)",
        not_in_sentence=r"不小心|摔|磕|碰|车祸|猫|狗|树枝|玻璃|手术|抽血|双眼皮|做饭|刮胡|剃须|纸|开刀|疫苗|被|蚊|痒|湿疹|过敏|痘|骑|车|小孩|孩子|宝宝|他|她|切|洋葱|水果|削|烤|签子|肉|菜|鱼|刺身|打针|纹身|穿孔"
        r"|撞到(?:了)?(?:门|桌|柜|床|墙角|头了|柱子)|门框|桌角|柜门|篮球|足球|球场",
    ),
    # a method weighed (用哪种方式离开比较不会给家人添麻烦, 吃什么药可以安静地走; not leaving a job)
    _zh(
        r"(?:哪种|哪个|什么|怎样的?|怎么样?的?|如何)(?:方式|方法|办法|途径|药)?[^。!?]{0,6}(?:离开|走|结束)[^。!?]{0,12}"
        r"(?:不痛|不疼|痛苦|麻烦|添麻烦|拖累|伤心|难过|安静|安详|体面|干净|不会被发现|最快|快一点)"
        r"|(?:什么|哪种)[^。!?]{0,8}(?:可以|能|才能|会)[^。!?]{0,4}(?:安静|安详|没有痛苦|不痛苦?|无痛|平静)地?(?:走|离开|死去|离世)(?=$|[,~…吗呢啊])",
        not_in_sentence=r"公司|工作|单位|学校|群|城市|家乡|老家|职场|岗位|辞职|跳槽|分手|婚|恋爱|他|她|会场|饭局|聚会|派对|会议|房子|路|车|地铁|机场|考场",
    ),
    # at the water or a height with intent (我站在江边水很深, 一个人去河边不打算回来了; not fishing, fireworks, a view)
    _zh(
        r"(?:站在|坐在|来到了?|到了|在|去|走到)(?:江边|河边|海边|湖边|水库边?|桥上|天桥上|大桥上|楼顶|天台|顶楼|崖边|悬崖边|江|河|海)[^。!?]{0,14}"
        r"(?:不(?:想|打算|准备|会)再?(?:回去|回来|回家|上来|下来)|水(?:很|好|真|那么|特别)?深|好高|很高|下面(?:车|水)(?:很多|好多|好急|很急)?)",
        not_in_sentence=r"拍照|风景|景色|夜景|烟花|旅游|旅行|玩|好美|太美|日出|日落|看星星|钓鱼|吃饭|烧烤|露营|游泳|朋友|一起|我们|散步|跑步|出差|住|酒店|民宿",
    ),
    # a plan and its day: 今天就是我计划离开的日子, 等家人睡着以后吃药, 等室友出门了我就动手, 药准备好了今晚就吃
    _zh(
        r"(?:计划|打算|决定|准备)(?:好)?的?(?:离开|走)的(?:日子|那天|时间|日期)|(?:离开|走)的(?:日子|时间|那天|日期)(?:我|都|已经)*(?:定|选|挑)好了"
        r"|(?:日子|日期)(?:我|都|已经)*(?:定|选|挑)好了|(?:定|选|挑)好(?:了)?(?:离开的|走的)?(?:日子|日期)"
        r"|等[^。!?]{0,8}(?:睡着|睡了|出门|不在家|上班去)(?:了|以后|之后)?[,\s]*(?:我)?就?(?:动手|吞药|行动|去?(?:吃|吞)(?:掉)?(?:那些|这些|所有的?|全部的?)药)(?=$|[,~…了吧])"
        r"|(?:plan|计划|打算|决定)[^。!?]{0,6}等[^。!?]{0,8}(?:睡着|睡了|出门|不在家)(?:了|以后|之后)?[^。!?]{0,4}(?:吃药|吞药)"
        r"|药(?:我|都|已经|也)*(?:准备|备|攒|囤)(?:好|齐|够)了?[^。!?]{0,6}(?:今晚|今天|等|一会|马上|明天)就?(?:吃|吞)",
        not_in_sentence=_TRIP
        + r"|婚|结婚|搬|装修|手术|考试|面试|生日|聚|订|感冒|发烧|退烧|医生|按时|饭后|夜宵|打扫|做饭|收拾",
    ),
    # more of the same categories: a burden's own words (少了我这个累赘), never to be woken (永远别叫醒我), cutting as a
    # habit (每次失眠我就拿小刀在手臂上划), pills that end it (吃完这些药就能结束了)
    _zh(
        r"少了?我这个?(?:累赘|负担|拖油瓶|包袱|废物)|我这个(?:累赘|拖油瓶)"
        r"|(?:别|不要)(?:再)?叫醒我了?[,\s]*永远|永远(?:都)?(?:别|不要)(?:再)?叫醒我"
        r"|(?:拿|用)(?:刀|小刀|刀片|美工刀|剪刀|针|圆规)[^。!?,]{0,2}在(?:手臂|胳膊|手腕|大腿|腿|手背|身上|皮肤)上?(?:划|割|刻|扎)"
        r"|(?:吃|吞)(?:完|了|下|掉)(?:这些|那些|所有的?|全部的?)药[^。!?,]{0,4}就(?:能|可以|会)?(?:结束|解脱|睡过去|走)",
        not_in_sentence=r"不小心|切|削|做饭|感冒|发烧|病|好了",
    ),
    # English
    _en(rf"{_KILL}\s?{_MYSELF}(?!\s?laughing)", unless=rf"{_NEVER}k"),
    _en(r"(?:end|ending)\s(?:my\s(?:own\s)?life|it\sall)|(?:take|taking)\smy\s(?:own\s)?life"),
    _en(
        rf"(?<!n't\s)(?<!not\s)(?<!dont\s)(?<!never\s)(?:want|wanna|wanted|wants|i\sdeserve)\s(?:to\s)?(?:just\s)?(?:{_DIE}|be\sdead)"
        r"(?!\s(?:of|from)\s(?:laughter|laughing|embarrassment|cringe|boredom|shame))"
    ),
    _en(
        rf"wish\si\s(?:was|were|could\sbe)\sdead|wish\si\scould\s(?:just\s)?{_DIE}|wish\si\s(?:was|were)n'?t\salive|wish\si(?:'d|\shad)?\s(?:never\sbeen|was\snever|wasn'?t)\sborn"
    ),
    _en(
        r"suicidal(?!\s(?:mission|move|pace|driving))",
        unless=r"(?:not|never|n't|no\slonger)\s(?:really\s|feeling\s|actually\s)?suicidal",
        reported=True,
    ),
    # "suicide" in the first person fires as 自杀 does; not in suicide squad, prevention, rates, doors
    _en(
        r"suicide(?!\s(?:squad|prevention|rates?|awareness|bomb\w*|doors?|hotline|lifeline|mission|attack\w*))",
        unless=r"(?:never|not|n't|no\slonger)\s(?:\w+\s){0,3}suicide",
        reported=True,
    ),
    _en(r"s[e3]lf[\s\-]?(?:h[a@4]rm|injur|mutilat)\w*", reported=True),
    _en(
        rf"(?:hurt|hurting|harm|harming|cut|cutting|starve|starving|burn|burning|burned|burnt)\s?{_MYSELF}",
        unless=rf"{_ACCIDENT}|{_NEVER}(?:hurt|harm|cut)",
    ),
    _en(r"(?:cut|cutting|slit|slitting)\smy\s(?:wrists?|arms?|thighs?|throat)"),
    _en(
        rf"(?:hang|hanging|shoot|shooting|drown|drowning|stab|stabbing|poison|poisoning)\s?{_MYSELF}",
        unless=rf"{_NEVER}",
    ),
    _en(
        r"(?:don'?t|do\snot|dont|no\slonger)\s(?:really\s|even\s)?(?:want|wanna|wish)\s(?:to\s)?(?:live|be\salive|exist|be\shere\sanymore)"
        r"(?!\s(?:in|with|there|here|near|at|on|by|alone|together|abroad|downtown|close|far|next|without|under|for|forever)(?![a-z]))"
    ),
    _en(
        r"can'?t\sgo\son(?:\sanymore|\sany\slonger|\sliving|\slike\sthis)?(?!\s(?:the|a|an|with|vacation|holiday|trips?|dates?|stage|tour)(?![a-z]))"
    ),
    _en(
        r"(?:done|finished)\swith\s(?:life|living|being\salive)|(?:tired|sick)\sof\s(?:living|being\salive)(?!\s(?:in|with|here|there|at|on|alone|so|far|near))"
    ),
    _en(
        r"better\soff\sdead|better\s(?:off\s)?without\sme|no\s(?:reason|point)\sto\s(?:live|living|keep\sliving|go\son|be\salive)|nothing\s(?:left\s)?to\slive\sfor"
    ),
    _en(r"(?:my\s)?life\s(?:is|feels)\s(?:so\s|completely\s|just\s)?(?:meaningless|pointless)"),
    _en(
        r"(?:life\s(?:isn'?t|is\snot|ain'?t)|not)\sworth\sliving(?!\s(?:in|with|here|there))|point\s(?:of|in)\s(?:living|being\salive|going\son)(?!\s(?:in|with|here|there|near))"
    ),
    _en(
        r"(?:want|wanna|going|gonna|plan|planning|thinking|thought|tempted|try|tried|might|decided|about)\s(?:to\s|of\s|about\s)?(?:just\s)?overdos(?:e|ing)"
        r"|overdos(?:e|ing)\son\s(?:my\s|the\s|all\s|some\s)?(?:pills|meds|medication|sleeping\spills|tylenol|paracetamol|insulin|painkillers|antidepressants)"
    ),
    _en(
        r"(?:take|taking|took|swallow|swallowing|swallowed)\s(?:all|every\sone)\s(?:of\s)?my\s(?:pills|meds|medication|sleeping\spills)"
        r"|(?:take|taking|took|swallow|swallowed)\s(?:a|the)\s(?:whole|entire)\s(?:bottle|pack|box)\sof\s(?:pills|meds|sleeping\spills|tylenol|painkillers)"
        r"|stockpil(?:e|ing|ed)\s(?:my\s)?(?:pills|meds)"
    ),
    _en(
        r"(?:want|wanna|going|gonna|thinking\sabout|might|about)\s(?:to\s)?jump(?:ing)?\s(?:off|from|in\sfront\sof)\s(?:a|the|this|my|that)\s"
        r"(?:bridge|building|roof|rooftop|balcony|cliff|train|car|ledge|window)"
    ),
    _en(
        r"(?:never|not|don'?t|won'?t)\swake\sup\s(?:again|ever\sagain|tomorrow)|(?:hope|wish|pray)\s(?:that\s)?i\s(?:don'?t|won'?t|never|do\snot|will\snot)\swake\sup(?!\s(?:late|early|at|before|with|in\sa|to\s|on\stime|feeling|sick|hungover))"
        r"|sleep\s(?:and|&)\s(?:just\s)?never\swake\sup|go\sto\ssleep\sforever",
        not_in_sentence=r"(?<![a-z])(?:lol|lmao|haha\w*|exhausting|this\sweek|long\sday|noon|until|till)(?![a-z])",
    ),
    _en(
        r"(?:want|wanna|wish\si\scould)\s(?:to\s)?(?:just\s)?(?:disappear\sforever|stop\sexisting|not\sexist|cease\sto\sexist|vanish\sforever)"
    ),
    # wanting to end it, seeing no point, rather being dead (not "end it with him", "rather die than wear crocs")
    _en(
        r"(?<!n't\s)(?<!not\s)(?<!dont\s)(?<!never\s)(?:want|wanna|going|gonna|ready|decided|plan(?:ning)?|need)\s(?:to\s)?(?:just\s)?"
        r"end\s(?:it|things|everything|this\slife|it\sall)(?=\s*(?:$|[,.;!?…]|now|tonight|today|soon|forever|for\sgood|once\sand|already|here))"
    ),
    _en(
        r"want\s(?:it\sall|everything|all\sof\s(?:this|it)|my\slife|this\slife)\s(?:to\s)?(?:just\s)?(?:end|stop|be\sover)"
    ),
    _en(
        r"(?:don'?t|do\snot|can'?t|cannot)\s(?:really\s|even\s)?see\s(?:the|any)\spoint\s"
        r"(?:anymore|any\smore|(?:in|of)\s(?:anything|life|living|going\son|it\sall|being\salive))"
    ),
    _en(
        r"(?:i'?d|i\swould|i)\s(?:just\s|really\s|honestly\s)?rather\s(?:be\sdead|die|not\sexist|not\sbe\salive|not\slive)"
        r"(?![,\s]*(?:than|then|instead|before|lol))|(?:i'?d|i\swould)\s(?:just\s|really\s|honestly\s)?rather\s(?:be\sdead|die)\s(?:than|then)\s(?:keep\s|go\son\s|continue\s)?(?:living|being\salive|(?:to\s)?live|wak(?:e|ing)\sup)|i\s(?:should|might\sas\swell|may\sas\swell)\s(?:just\s)?(?:die|be\sdead|end\sit)"
        r"(?![,\s]*(?:trying|laughing|lol))"
    ),
    _en(
        r"hate\s(?:being\salive|living|existing|my\sexistence)(?!\s(?:in|with|here|there|at|on|alone|so|far|near|next|like|off|out))"
    ),
    _en(
        r"(?:don'?t|do\snot)\sdeserve\sto\s(?:live|be\salive|exist)|i\s(?:really\s)?shouldn'?t\s(?:even\s)?(?:be\salive|exist|have\sbeen\sborn)"
        r"|(?:i'?m|i\sam)\s(?:just\s|such\s|only\s)?a\sburden|won'?t\sbe\sa\sburden\s(?:much\slonger|for\slong|anymore|any\slonger)"
    ),
    _en(
        r"(?:don'?t|do\snot|never)\s(?:really\s)?(?:want|wanna|wish)\s(?:to\s)?wake\sup"
        r"(?!\s(?:early|at|before|for|so|too|this\searly|on|in\sthe\smorning|to|from)(?![a-z]))",
        not_in_sentence=r"work|school|class|alarm|monday|shift|early|dream|lazy|bed|weekend",
    ),
    _en(
        r"want\sto\s(?:just\s)?disappear(?=\s*(?:$|[,.;!?…]|forever|and\snever|from\s(?:this|the)\s(?:world|earth|planet)|from\sexistence|for\sgood|permanently))",
        not_in_sentence=r"embarrass|cringe|awkward|vacation|trip|island|cabin|holiday|weekend|shame|mortif",
    ),
    # "nobody would miss me if I was gone", "if I died would anyone care" (not a game's death)
    _en(
        rf"{_GONE}[^.!?]{{0,30}}{_MISSED}|{_MISSED}[^.!?]{{0,30}}{_GONE}|(?:nobody|no\s?one|no-one)\s(?:would|will|'d|is\sgoing\sto|gonna)\s(?:even\s|really\s|actually\s)?miss\sme",
        not_in_sentence=r"game|level|boss|respawn|raid|match|minecraft|fortnite|character",
    ),
    # cutting again, "sh" for self-harm (not "cutting corners", "cut my hair again")
    _en(
        r"(?:been|started|start|keep|kept|back\sto|relapsed?(?:\sand)?|went\sback\sto|urges?\sto|want\sto|wanna|stop|stopped|quit)\s(?:start(?:ed)?\s)?cutting"
        r"(?=\s*(?:$|[,.;!?…]|again|lately|recently|more|every|tonight|today|last|myself|deeper|at\snight))"
        r"|(?:i|i've|i\shave|i\sjust)\s(?:\w+\s)?cut\s(?:again|tonight|last\snight|deeper)(?=\s*(?:$|[,.;!?…]))"
        r"|(?:relaps\w*|urges?|clean)\s(?:on\s|from\s|to\s|of\s)?(?:sh|cutting|self\s?harm)|sh\s(?:urges?|scars?|relapse|again)",
        not_in_sentence=r"onion|hair|bangs|vegetable|veggie|paper|fabric|film|scene|video|edit|wood|grass|lawn|class|carb|sugar|cake",
    ),
    _en(
        r"(?:giving|gave|given|give)\saway\s(?:all\s)?(?:of\s)?my\s(?:\w+\s)?(?:things|stuff|belongings|possessions)"
        r"[^.!?]{0,30}(?:won'?t|will\snot|don'?t|not\sgoing\sto)\s(?:be\sneeding|need)"
    ),
    # pills swallowed, a rope made ready, a goodbye note, a last message
    _en(
        r"(?:took|take|taking|swallow\w*|ate|downed|popped)\s(?:a|the|an|half\sa)\s(?:whole\s|entire\s|full\s)?(?:bottle|pack|packet|box|handful|bunch)\sof\s(?:my\s|the\s)?"
        r"(?:pills|meds|medication|tablets|sleeping\spills|tylenol|advil|painkillers|paracetamol|xanax|antidepressants)"
        r"|(?:took|take|taking|swallowed|swallow|ate|popped)\s(?:way\s|far\s)?too\smany\s(?:of\s(?:my|the)\s)?(?:pills|meds|tablets|sleeping\spills|painkillers)"
    ),
    _en(
        r"noose|(?:got|have|'ve|bought|tied|made|prepared)\s(?:the|a|my)\s(?:rope|noose|blades?|razors?)\s(?:ready|tied|prepared|set\sup|hidden)",
        reported=True,
        not_in_sentence=r"climb|camp|boat|tent|sail|swing|tow|scout|western|cowboy|halloween",
    ),
    _en(
        r"goodbye\s(?:note|letter)s?|this\s(?:is|will\sbe)\s(?:my\s)?(?:last|final)\s(?:message|text|post|words|goodbye)"
        r"(?!\s(?:before|for\s(?:today|tonight|now|a\swhile|the\s(?:day|night|week))|until|till|of\sthe|today|tonight|here|on\sthis))"
        r"|goodbye\s(?:forever|world|cruel\sworld)|(?:my\s)?(?:final|last)\sgoodbye"
        r"|goodbye\s(?:everyone|everybody|all)(?![^.!?]{0,24}(?:see\syou|tomorrow|later|tonight|next|good\snight|for\snow|monday|soon|weekend|class))",
        reported=True,
        not_in_sentence=_TITLE_EN,
    ),
    # issue 23's families: a farewell tied to a time, the world without me, sleep without waking, self-harm acts,
    # a method weighed, a plan (not a trip, a last day at work, a lie-in, a kitchen cut)
    _en(
        r"won'?t\sbe\s(?:here|around|alive)\s(?:after|by|past|tomorrow|next|this\stime)|(?:by\sthe\stime|when)\syou\s(?:read|see|get)\s(?:this|my\smessage)[^.!?]{0,10}i'?(?:ll|\swill)\sbe\s(?:gone|dead)"
        r"|(?:this\sis|it'?s)\sthe\s(?:last|final)\stime\syou'?(?:ll|\swill)\s(?:hear\sfrom|see|talk\sto)\sme|(?:tonight|today)\sis\smy\s(?:last|final)\s(?:night|day)(?!\s(?:at|in|of|on|here|with))"
        r"|left\s(?:a\s|my\s)?(?:letter|note|letters|notes)\s(?:for\s\w+\s(?:\w+\s)?)?(?:to\s(?:find|read)|they'?ll\sfind)[^.!?]{0,20}(?:morning|tomorrow|after|when)",
        not_in_sentence=_TRIP_EN
        + r"|(?<![a-z])(?:love\s(?:her|him|you|them)|anniversary|valentine|lunch|breakfast|romantic|sweet|cute|rent|bills?|chores|groceries|dishes|birthday|surprise|gift|thank\w*|feed|walk|laundry|keys)(?![a-z])",
    ),
    _en(
        r"(?:everyone|everybody|the\sworld|my\sfamily|they|you|people)\s(?:would|will|'d)\s(?:all\s)?be\s(?:so\s|much\s)?(?:better|happier|fine|okay)\s(?:off\s)?if\si\s(?:just\s|simply\s|really\s)?(?:wasn'?t|weren'?t|was\snot|didn'?t\sexist|was\sgone|were\sgone|disappeared|died)",
        not_in_sentence=_TRIP_EN,
    ),
    _en(
        r"(?:go\sto\ssleep|fall\sasleep|sleep|close\smy\seyes|drift\soff)\s(?:and|&)\s(?:just\s)?(?:not|never|don'?t)\s(?:ever\s)?wake\s?up"
        r"|(?:hope|wish|pray)\s(?:that\s)?i\s(?:don'?t|won'?t|never|do\snot)\s(?:ever\s)?wake(?:\sup)?(?=\s*(?:$|[,.;!?…]|again|ever|anymore|this\stime|tomorrow\s*(?:$|[,.;!?…])))",
        not_in_sentence=r"noon|until|till|before|o'?clock|weekend|alarm|hike|monday|work|school|class|early|nap|lazy|sunday|saturday",
    ),
    _en(
        r"(?:scratch|scratching|scratched|cut|cutting|hit|hitting|punch\w*|bang\w*|burn\w*|pick\w*|claw\w*|bite|biting|bit|dig\w*|slap\w*)\s(?:[\w']+\s){0,3}"
        r"(?:until|till|'til|til)\s(?:it|they|i|my\s\w+)\s(?:bleed|bleeds|bled|bruise|bruises|bruised|scar|scars)"
        r"|(?:burn|burned|burnt|burning)\s(?:my\s)?(?:arms?|wrists?|skin|legs?|thighs?|hands?|myself)\s(?:with\s(?:a\s)?(?:lighter|cigarette|match|candle|hot\s(?:knife|metal))|on\spurpose)"
        r"|cut\s[^.!?]{0,20}(?:bleed|bleeds|bleeding|blood)\s(?:the\s)?(?:most|fastest|quickest|more|faster)|(?:where|how)\s[^.!?]{0,20}(?:cut|slit)\s[^.!?]{0,20}(?:bleed|die)",
        not_in_sentence=_ACCIDENT_EN
        + r"|(?<![a-z])(?:cat|dog|kitten|puppy|mosquito|itch\w*|eczema|rash|allerg\w*|bug|oven|stove|pan|tray|iron)",
    ),
    _en(
        r"(?:knife|blade|razor|gun|pills)\s(?:is\s)?in\smy\s(?:hands?|lap)|(?:holding|have|got)\s(?:a|the|my)\s(?:knife|blade|razor(?:\sblade)?|gun)\s(?:to|against)\smy"
        r"|(?:holding|have|got)\s(?:a|the)\s(?:razor\s)?blade|(?:razor|blade|knife|gun|pills|rope)[^.!?]{0,30}(?:using|use)\sit(?=\s*(?:$|[,.;!?…]|tonight|now|on\smyself))"
        r"|(?:use|using)\s(?:it|this|that|them)\son\s"
        + _MYSELF
        + r"|(?:rope|gun|pills|blade|razor)[^.!?]{0,30}know\swhat\si'?m\s(?:going\sto|gonna)\sdo\swith\s(?:it|them)",
        not_in_sentence=r"carv\w*|turkey|chop\w*|cook\w*|slic\w*|onion|bread|cake|kitchen|dinner|steak|vegetables?|fruit|apple|butter|whittl\w*|craft|shav\w*|cream|lotion|shampoo|mask|makeup|product|oil|serum|moistur\w*|tan|brush|dye|clipper|trimmer|spray|conditioner|scrub|sunscreen|hunt\w*|range|skate|paper|box",
    ),
    _en(
        r"(?:painless|easiest|quickest|fastest|best|peaceful|quietest|surest)\s(?:way|method)s?\s(?:to\s(?:go|die|do\sit|end\s(?:it|things)|check\sout|leave\sthis\sworld)|of\sdying)(?=\s*(?:$|[,.;!?…]|for\sgood|forever|without|tonight))"
        r"|how\smany\s(?:\w+\s)?(?:pills|tablets)\s(?:it\s)?(?:takes|would\stake|does\sit\stake|it\swould\stake)(?=\s*(?:$|[,.;!?…]|to\s(?:die|overdose|kill|od|end)))"
        r"|(?:i'?m|i\sam)\s(?:standing\s|sitting\s)?(?:at|on)\s(?:the|a)\s(?:bridge|edge|ledge|roof|rooftop|cliff)\s(?:right\snow|now|again)",
        not_in_sentence=r"fix\w*|repair\w*|party|bar|view|photos?|sunset|sunrise|fireworks|band-?aid|wax\w*|tooth|shot|tourists?|meeting",
    ),
    _en(
        r"(?:picked|chose|chosen|set|decided\son)\s(?:a|the|my)\s(?:date|day)\s(?:and\si'?m\sready|for\sit)|(?:the|my)\s(?:date|day)\sis\s(?:set|picked|chosen)(?=\s*(?:$|[,.;!?…]))"
        r"|(?:have|got|made|'ve\sgot)\sa\splan\sto\s(?:end|do)\s(?:it|things|everything)",
        not_in_sentence=r"wedding|party|move|moving|trip|flight|launch|exam|surgery|interview|birthday|date\snight|meeting|vacation|holiday|release|deadline|project",
    ),
    _en(
        r"(?:won'?t|will\snot|don'?t)\s(?:have\sto\s)?(?:deal\swith|worry\sabout|put\sup\swith|take\scare\sof|see)\sme\s(?:much\slonger|for\slong|anymore|any\slonger|after\s(?:tonight|today|this))"
        r"|(?:decided|know|knew)\s(?:that\s)?(?:tonight|today)\s(?:is|will\sbe)\sthe\s(?:night|day)(?=\s*(?:$|[,.;!?…]))",
        not_in_sentence=_TRIP_EN
        + r"|(?<![a-z])(?:finale|party|date|premiere|concert|game|match|launch|show|propos\w*|wedding)(?![a-z])",
    ),
)

# A sentence ends at 。!?; or a line break (NFKC has turned ！？； into !?;), at a full stop before a
# space, or at an ellipsis. A clause ends at a comma or colon too.
_SENTENCE_BREAK = re.compile(r"[。!?;\n]+|\.(?=\s|$)|\.{2,}")
_CLAUSE_BREAK = re.compile(r"[,、:]")
# The general rule, a net under the families: a clause that speaks of the person themself and holds death or
# self-harm vocabulary (`HARMS`), once everyday idioms (`IDIOMS`) are taken out and unless the word is denied.

# Shapes that never mean it: masked before the vocabulary is read. Degree words before 死 (累死, 疼死了: pain
# said as degree, while 疼得想死 still fires), set words with 死, things that die (a phone, a plant, a bug),
# games, and the English idioms of dying and killing.
_DEGREE = (
    "累|热|冷|冻|饿|渴|困|撑|笑|气|吓|烦|忙|闷|痒|疼|痛|辣|咸|甜|酸|苦|臭|香|丑|美|帅|萌|卷|挤|吵|晒|馋|懒|蠢|笨|傻|土|贵|虐|哭|腻|憋|熏|晕"
    "|急|愁|慌|羞|尬|难吃|好吃|好看|难看|好听|可爱|无聊|尴尬|难受|恶心|麻烦|郁闷|紧张|丢人|丢脸|羡慕|嫉妒|心疼|后悔|肉麻|舒服|开心|高兴"
    "|激动|感动|爽|乐|帅气|漂亮|好玩|折腾|坑|闹|玩|学|练|写|背|跑|冤|憋屈|心塞|胖|瘦|矮|穷|老|压|难|肝"
)
IDIOMS_ZH: tuple[str, ...] = (
    # degree: 累死了, 笑死我了, 辣死人, 热得要死, 吓个半死 (not 饿死自己: a method)
    rf"(?:{_DEGREE})(?:得|到)?(?:要|快|半)?死(?!自己)(?:我了|人了|你了|了|我|人|你|啦|掉了)?",
    rf"(?:{_BODILY}|尴尬|无聊)[得到]我?想死",  # bodily degree before 想死 (see above)
    r"(?:得|到|个)(?:要|半)死|要死(?:啊|呀|啦)|(?:要|快)?死了[,\s]*(?:要|快)?死了|死得(?:很|好|太|超|特别|那叫一个)?(?:惨|难看|透)|要死不活|半死不活|死去活来|累死累活|拼死拼活",
    # missing someone: 想死你了, 想死我了 (I missed you), 想你想死了
    r"想死(?:你|您|他|她|它|宝|亲|老|大|妈|爸|小|家|我[了啦啊呀]|了你|人家)|想你想死",
    # set words
    r"死(?:党|鬼|宅|肥宅|胖子|丫头|小子|孩子|东西|样|相|鱼眼|猪|马当活马|鸭子|定了|定|机|线|磕|抠|啃|记|背|读书|脑筋|心眼|心|板|活|命|劲|撑|扛|守|战|等|盯|抱|咬|扣|拉|拽|按|攥|缠|磨|犟|倔|要面子|皮赖脸|乞白赖|气沉沉|水|海|火山|神|侍|忠|粉|对头|敌|角|胡同|结|扣|循环|锁|代码|链|局|球|穴|面|贵|沉|咸|甜|难吃|飞|刑|缓|罪|囚|者|因|讯|伤|难|了这条心|就死|了都要爱)|(?<!连)死(?:也|都)(?:不|要|没)",
    r"死亡(?:笔记|搁浅|细胞|金属|凝视|芭比|角度|颜色|之组|率|人数|证明|事故|名单|回放|重现)|致死率|生死|死里逃生|出生入死|贪生怕死|视死如归|死而无憾|死而复生|死不瞑目|死有余辜",
    r"该死|找死|作死|装死|假死|猝死|社死|卡死|养死|(?<!连)不?怕死|差点(?:就)?死在|被[^,。!?]{0,6}害死|(?:^|(?<=[,\s]))(?:真的|真|简直|感觉|都)*(?:要|快)死(?:了|啦)?(?=$|[,~…])|不死(?:鸟|族|之身)|长生不死|死灵|往死里|打死(?:我)?(?:也|都)(?:不|没)|等我死了?(?:以后|之后)?再",
    r"(?:被我|把(?!自己))[^,。!?]{0,8}(?:打|拍|踩|捏|毒|药|淹|弄|掐|电|闷|压)死|差点(?:就|没)?被[^,。!?]{0,6}死|养的[^,。!?]{0,4}(?:又|都|也|已经)*死",
    # a task or a person killing me is hyperbole: 我要被作业杀死了, 被期末报告逼死了, 被老板折磨死了 (not 想死, 逼得想死)
    r"被[^,。!?想要去]{1,10}?(?:给)?(?:杀|逼|累|烦|折磨|难|气|吓|虐|卷|坑|整|折腾|搞|压|磨|吵|熏|困|热|晒|冻|饿|笑|催|熬|拖|耗|挤|闷|忙)死(?:了|啦|掉了?)?",
    # degree words before an English die: 笑到die, 笑到要die了
    rf"(?:{_DEGREE})(?:得|到)(?:要|快)?(?:die|dead|died)",
    # 'I'd rather die than do X' about clothes, food, a chore: 让我穿那条裙子 我宁愿去死 (not 与其这样活着我宁愿去死)
    r"(?:让|叫|要|逼|喊)我(?:去|再)?(?:穿|吃|喝|戴|唱|跳舞|相亲|化妆|剪|染|洗碗|早起|跑步|出门|坐|听|用|玩|拍|演|跳)[^。!?]{0,16}?(?:宁愿|宁可|还不如)(?:去|直接)?死(?:掉|了)?",
    r"《[^》]{0,40}》|(?:对|关于|有关|讨论|探讨)死亡|刀片(?:式|服务器|机)|断舍离",
    r"(?:网|网络|信号|服务|网站|页面|花|草|植物|仙人掌|多肉|绿萝|盆栽|树|苗|鱼|金鱼|虾|仓鼠|蚕|虫|蚊子|蟑螂|苍蝇|蚂蚁|手机|电脑|电池|机子|系统|服务器|进程|程序|号|账号|电瓶|键盘|鼠标|耳机|插件|app)"
    r"(?:又|都|也|全|快|要|已经|居然|竟然|全都|好像|终于|给|被|被我)*(?:养|卡|晒|冻|淹|浇)?死",
    r"跳楼(?:价|机|式|大?甩卖|大?清仓)|跳水(?!自杀)|三上吊|自杀(?:预防|干预|热线|率|防治|式|小队|突击队)|(?:预防|防止|反)自杀|另一个世界(?:的|里的)?(?:游戏|小说|动漫)",
)
IDIOMS_EN: tuple[str, ...] = (
    r"(?<![a-z])(?:die|dying|died)\s(?:of|from)\s(?:laughter|laughing|embarrassment|boredom|cringe|shame|cuteness|happiness|excitement|heat|hunger|thirst|jealousy|envy|joy)",
    r"(?<![a-z])(?:to|would|could|i'?d|i\swould)\s(?:\w+\s)?die\sfor|dying\sto|to\sdie\sfor|die[\s-]hard|die\slaughing|died\slaughing|died\sa\slittle|do\sor\sdie|never\ssay\sdie|roll\s(?:a|the)\sdie",
    r"(?<![a-z])rather\s(?:\w+\s)?(?:die|be\sdead)\s(?:than|then)(?!\s(?:keep\s|go\son\s|continue\s)?(?:living|being\salive|(?:to\s)?live|wak(?:e|ing)\sup))|(?:sugar|caffeine|coffee|carb|cuteness|chocolate|dopamine|information|content)\soverdos\w*",
    r"(?<![a-z])die\sif\s(?:i|we)\s(?:don'?t|do\snot|can'?t|have\sto|see|hear|eat)",
    r"(?<![a-z])(?:almost|nearly)\sdied\s(?:of|from|laughing|when)|died\sinside|die\shappy",
    r"(?<![a-z])dead\s(?:tired|serious|wrong|set|last|end|on|weight(?!\sto)|zone|ringer|heat|cent(?:er|re)|air|skin|leaves|battery|phone|body\slol|inside\slol|of\snight|silent|quiet|simple|easy|ass)",
    r"(?<![a-z])(?:over\smy\sdead\sbody|drop[\s-]dead\s(?:gorgeous|beautiful|sexy|funny)|walking\sdead|red\sdead|dead\sby\sdaylight|dead\sspace|dead\scells|dead\ssea|deadpool)",
    r"(?<![a-z])(?:battery|phone|laptop|car|plant|plants|computer|pc|tv|mic|charger|wifi|server|engine|fish|goldfish|flowers?|basil|cactus|pen|printer|controller|remote|tablet|ipad|iphone|headphones|airpods|mouse|keyboard|watch|tamagotchi|app|game|group\schat|chat|vibe|party|conversation)"
    r"\s(?:[\w']+\s){0,4}?(?:is\s|was\s|has\s|just\s|finally\s|already\s|went\s|totally\s|completely\s)*(?:died|dead|dying)",
    r"(?<![a-z])(?:i'?m|im|i\sam)\s(?:so\s|literally\s|actually\s|lowkey\s|legit\s|fr\s)?(?:dead|dying|deceased|ded)(?=\s*(?:$|[,.!?]|lol|lmao|lmfao|haha|rn|fr|[😂💀🤣😭😆]))",
    r"(?<![a-z])(?:i'?m|i\sam)\s(?:so\s)?dead\s(?:when|if|meat)|dead\smeat|(?:lol|lmao|lmfao|haha\w*)\s(?:i'?m\s)?(?:dead|dying|ded)|(?:dead|dying|ded)\s?[😂💀🤣😭😆]",
    r"(?<![a-z])(?:bored|scared|worried|sick|tired|frozen|freezing|starving|laughing|tickled|annoyed|embarrassed|love\s(?:it|him|her|you|them|this))\s(?:(?:me|us|him|her|them|you|everyone)\s)?(?:half\s)?to\sdeath",
    r"(?<![a-z])(?:be\s)?the\sdeath\sof\sme|near[\s-]death|death\sby\s(?:chocolate|powerpoint|meetings?|a\sthousand)|till\sdeath|sudden\sdeath|cheat(?:ed|ing)?\sdeath",
    r"(?<![a-z])death\s(?:metal|note|star|stranding|valley|match|row|penalty|toll|rate|certificate|grip|trap|stare)",
    _TITLE_EN,
    r"(?<![a-z])end\s(?:it|things)\swith|end\sit\s(?:here|there)\sfor\s(?:today|now|tonight)",
    # a device or a battery about to die: "my phone is about to die", "laptop's gonna die"
    r"(?<![a-z])(?:battery|phone|laptop|computer|pc|charger|tablet|ipad|iphone|headphones|airpods|controller|car|watch|mic)(?:'s|s)?\s(?:is\s|'s\s|s\s)?(?:about\sto|going\sto|gonna|will|might|could|'ll)\s(?:\w+\s)?die",
    # dying of a bodily or dull state: "so bored i could die", "this lecture is so boring i might die"
    r"(?<![a-z])(?:bored|boring|hungry|starving|sleepy|full|hot|cold|freezing|embarrassed|embarrassing|awkward|cringey?)\s(?:that\s)?(?:i|we)\s(?:could|might|would|will|'d|'ll|am\sgonna|'m\sgonna|gonna|'m\sgoing\sto)\s(?:literally\s|actually\s|just\s)?die",
    # "my ex is dead to me": someone cut off
    r"(?<![a-z])(?:is|are|was|'s|s)\s(?:\w+\s)?dead\sto\s(?:me|us)",
)
# In a game, 死, 杀, die and killed are a character's (the game words of the families, and more).
_GAME_WORDS = re.compile(
    _GAME
    + r"|狼人杀|王者|吃鸡|刷本|开黑|打野|模拟人生|我的世界|原神|(?<![a-z])(?:sims|roblox|pokemon|stardew|terraria|skyrim|animal\scrossing|game|gaming|level|boss|respawn|raid|minecraft|fortnite|elden\sring|dark\ssouls|souls|lives|hp|spawn|ranked|teammates?|pvp|pve|speedrun|valorant|league|overwatch|zelda|mario)(?![a-z])"
)
_GAME_DEATH = re.compile(r"死|杀|(?<![a-z])(?:die|died|dies|dying|dead|death|deaths|killed|kill|kills)(?![a-z])")
_IDIOM_ZH = re.compile("|".join(f"(?:{idiom})" for idiom in IDIOMS_ZH))
# told as done, beside a laugh or after exertion: 我宣布我已经死了, 我不活了哈哈哈哈, "i'm dead after leg day 😂"
# (a wish, 想死 or 不想活了, is never masked: it fires as hyperbole may)
_JOKE_DEATH = re.compile(
    r"(?:我|俺)?(?:宣布|感觉|觉得)?(?:我|俺)?(?:已经|直接|当场|原地|彻底|真的|基本)*(?:死了|去世了?|没了|挂了)(?!算了|就好)|(?<![想要愿再续])不活了|(?:宁愿|宁可)(?:去|直接)?死(?:掉|了)?"
    r"|(?<![a-z])(?:gonna|going\sto|will|'ll|might|would)\s(?:literally\s|actually\s|legit\s)?die\sif\s(?:i|we)\s"
    r"|(?<![a-z])(?:i'?m|im|i\sam)\s(?:so\s|literally\s|actually\s|officially\s|basically\s)*(?:dead|deceased|ded)(?![a-z])"
)
_LAUGH_RE = re.compile(_LAUGH)
_EXERTION_RE = re.compile(_EXERTION)
_IDIOM_EN = re.compile("|".join(f"(?:{idiom})" for idiom in IDIOMS_EN))


@dataclass(frozen=True)
class Harm:
    """One kind of the general rule's vocabulary. `not_in_sentence`: contexts where the words are everyday (an
    accident for 划, a bungee jump for "jump off"); `needs`: a word the sentence must hold too (a height for 不敢跳);
    `implied`: the words speak of the speaker even when no person is named (遗言, "this is goodbye")."""

    words: re.Pattern[str]
    not_in_sentence: re.Pattern[str] | None = None
    needs: re.Pattern[str] | None = None
    implied: bool = False


def _harm(words: str, not_in_sentence: str | None = None, needs: str | None = None, *, implied: bool = False) -> Harm:
    return Harm(
        re.compile(words),
        re.compile(not_in_sentence) if not_in_sentence else None,
        re.compile(needs) if needs else None,
        implied,
    )


def _harm_en(
    words: str, not_in_sentence: str | None = None, needs: str | None = None, *, implied: bool = False
) -> Harm:
    return _harm(rf"(?<![a-z])(?:{words})(?![a-z])", not_in_sentence, needs, implied=implied)


_HEIGHT = r"楼|层|天台|桥|阳台|窗|崖|河|江|海|湖|水库|顶"
_SPORT = (
    r"蹦极|跳水|跳伞|跳台|泳池|游泳|潜水|冲浪|滑雪|蹦床|水上乐园|跳板"
    r"|(?<![a-z])(?:bungee|diving|dive|pool|swim\w*|skydiv\w*|parachut\w*|trampoline|zipline|for\sfun|on\sa\sdare)(?![a-z])"
)
_SIGHTS = (
    r"拍照|风景|景色|夜景|烟花|日出|日落|旅游|旅行|打卡|看星星|好美|太美|晒被子|晾"
    r"|(?<![a-z])(?:view|photos?|pictures?|selfies?|sunset|sunrise|tourists?|stars|fireworks)(?![a-z])"
)
_ACCIDENT_ZH = r"橡皮|刻章|印章|手工|模型|裁纸|铅笔|雕刻|南瓜|切(?:菜|洋葱|水果|肉|西瓜|苹果|土豆|到)|洋葱|水果|西瓜|苹果|不小心|摔|磕|碰|车祸|猫|狗|树枝|玻璃|手术|抽血|双眼皮|切菜|做饭|削|刮胡|剃须|纸|开刀|船|桨|疫苗|屏幕|手机|桌|墙|漆|快递|拆|韭菜|肉|菜|鱼"
_SLEEP_IN = r"梦|赖床|闹钟|懒觉|被窝|起床|周末|早八|上班|上课|alarm|work|school|class|monday|shift|early|weekend|lazy|dream|hangover|noon|until|till|o'?clock|lol|lmao|haha|exhausting|this\sweek|long\sday"
HARMS: tuple[Harm, ...] = (
    # dying and ending one's life: 死 (what is left of it once the idioms are out), 自杀, 结束自己, 另一个世界
    _harm(
        r"死|自杀|轻生|自尽|寻短见|短见|了断|了结自己|把(?:我)?自己(?:给)?(?:了结|了断|结束|解决|处理|弄死|杀)|不想(?:再)?活(?![成在得动跃泼络儿])|活够了|活腻|活不下去|不活了|不想(?:再)?存在(?!感)|没死成|死不成"
        r"|结束(?:掉)?(?:自己|我自己|我的?(?:生命|性命|人生|一生|命)|生命|性命|这一切|一切|这条命|这辈子|这一生)"
        r"|离开(?:这个|这)?(?:世界|人世|人间)|(?:去|到)(?:另一个|另外一个|那个)世界|(?:去|到|上)天堂(?:找|陪|见)",
        not_in_sentence=r"穿越|异世界|转生",
    ),
    # methods: 跳楼, 上吊, 烧炭, 割腕, 农药; jumping from a height; standing at its edge; walking into the sea
    _harm(
        r"跳楼|跳河|跳江|跳海|跳湖|跳桥|跳崖|跳井|卧轨|上吊|烧炭|割腕|服毒|农药|百草枯|敌敌畏|老鼠药|吞药",
        not_in_sentence=r"果树|庄稼|地里|菜地|杀虫|打药|喷药|除草|烧烤|烤肉",
    ),
    _harm(r"跳(?:下去|了下去|出去)|往下跳|一跃而下|纵身一跃", not_in_sentence=_SPORT),
    _harm(r"(?:没|不)敢跳(?![伞水舞绳远高槽台板床])|跳不下去", not_in_sentence=_SPORT, needs=_HEIGHT),
    _harm(
        r"(?:站|坐|蹲|爬)(?:在|到|上)了?[^,。!?]{0,4}(?:天台|楼顶|顶楼|屋顶|桥|窗台|阳台|悬崖|崖)的?(?:边|边上|边缘|栏杆外|外面|外边)"
        r"|走进(?:海|河|江|湖|水)里?[^,。!?]{0,4}(?:不|再也不|就不)(?:回来|上来|出来)",
        not_in_sentence=_SIGHTS,
    ),
    _harm(
        r"站在(?:窗台|栏杆|护栏)(?:上|外)|(?:翻|爬)(?:过|出)了?(?:栏杆|护栏|窗户)",
        not_in_sentence=_SIGHTS + "|擦|修|装",
    ),
    # pills taken or hoarded in a quantity only an overdose needs
    _harm(
        r"(?:吃|吞|喝|服)(?:了|下|掉|光)?[^,。!?]{0,3}(?:一整瓶|整瓶|一瓶|一整盒|整盒|一大把|一把|全部|所有|过量|几十|十几|一堆)[^,。!?]{0,3}(?:安眠药|药片|药丸|药|片)"
        r"|(?:安眠药|药片|药丸|药)[^,。!?]{0,6}(?:全|都|全部|一次性|一口气)(?:吃|吞|喝)(?:了|下|掉|光|下去)"
        r"|(?:攒|囤)(?![钱分])[^,。!?]{0,8}(?:安眠药|药)|(?:安眠药|药)[^,。!?]{0,8}(?:攒|囤)(?![钱分])",
        not_in_sentence=r"感冒|退烧|发烧|疫情|阳了|咳嗽",
    ),
    # cutting oneself: 划手腕, 刀片, a wound again, cuts counted
    _harm(
        r"(?<![规计策企笔比区刻谋分切收交宰])(?:割|划)(?:了|开|破|伤|烂)?(?:自己|手腕|手臂|胳膊|大腿|小臂|腕|手(?![机术指套表柄续段]))|刀片|美工刀"
        r"|(?:伤口|疤|口子|刀口|划痕|伤痕|血痕)[^,。!?]{0,6}(?:又|新|多了|添了|加了)|(?:又|新)(?:多|添|加|划|割)了[^,。!?]{0,3}(?:道|刀|条)"
        r"|(?:割|划)了?(?:好多|很多|好几|几十|十几|几|一|两|三)(?:道|刀|下(?!午))",
        not_in_sentence=_ACCIDENT_ZH,
    ),
    # farewells and one's end: 遗言, 和这个世界说再见, 活着的最后一天, 我不在了, 从这个世界上消失
    _harm(
        r"遗言|遗书|绝笔(?!之作)|(?:和|跟|向|对)(?:这个?)?世界(?:说)?(?:再见|告别|道别|拜拜|永别)|(?:告别|永别|再见了?)[,\s]*(?:这个?)?(?:世界|人间|人世)|永别了"
        r"|(?:活着|人生|生命|这辈子|这一生|在(?:这个?)?世界上?|在世上|在人间)的?最后(?:一天|一晚|一夜|时刻|几天|一刻)|我的最后一天(?=$|[,~…了吧啊])"
        r"|最后一次(?:看|见|跟|和|给|对|陪)(?:你|大家|你们|这个世界|世界|爸妈|妈妈|爸爸)(?![^,。!?]{0,3}说[,\s]*(?:别|不要|不许|你|以后|下次))"
        r"|(?:这辈子|这一生|人生|生命|我的命)就?到(?:这儿|这里|此)(?:为止)?(?:吧|了)"
        r"|(?:如果|要是|假如|万一|哪天|有一天|等)我[^,。!?]{0,4}(?:消失|不在)了|我[^,。!?]{0,6}不在了"
        r"|(?:从|在)这个?世界上?[^,。!?]{0,6}(?:消失|抹掉|抹去|删除)|(?:消失|抹掉|抹去)(?:在|于)这个?世界|不想(?:再)?(?:面对|待在|留在|呆在|活在)(?:这个?)?世界|把自己[^,。!?]{0,6}(?:抹掉|抹去|删除|消灭)",
        implied=True,
    ),
    _harm(
        r"永远[^,。!?]{0,2}(?:睡着|睡过去|睡下去|沉睡|闭上眼睛?|醒不过来)|长眠|一睡不醒|再也(?:不会?|醒不)(?:醒|来)|不(?:想|要|愿)再?醒(?:来|过来)",
        not_in_sentence=_SLEEP_IN,
    ),
    # English: dying, killing or ending oneself
    _harm_en(
        r"die|died|dead|death|suicide|suicidal"
        r"|end\s(?:my\s(?:own\s)?life|it\sall|myself)|take\smy\s(?:own\s)?life"
        r"|end\s(?:it|everything|things)(?=\s*(?:$|[,;…]|now|tonight|today|soon|forever|for\sgood|already|once))|end\severything(?!\s(?:with|on|in|for|at|about))"
        r"|(?:want|wish|hope|need|pray)\s(?:\w+\s){0,4}(?:kill|kills|shoot|murder)\sme|(?:hope|wish|pray)\s(?:\w+\s){0,5}(?:get|gets|be)\s(?:hit|killed|run\sover)",
        not_in_sentence=r"(?<![a-z])(?:squad|prevention|awareness|hotline|lifeline|bomb\w*|attack\w*)(?![a-z])",
    ),
    # methods: an overdose, a noose, wrists cut, a jump from a height or before a train
    _harm_en(
        r"overdos\w*|od\son|noose|bleed\s(?:out|to\sdeath)|slit\w*\s(?:my\s)?(?:wrists?|throat)"
        r"|(?:take|swallow|down)\s(?:all|every\sone)\s(?:of\s)?(?:them|the\spills|my\spills|my\smeds|the\stablets)"
        r"|(?:take|swallow|down)\w*\s(?:every\s(?:single\s)?(?:pill|tablet)|all\s(?:of\s)?(?:the|my)\s(?:pills|meds|tablets))"
        r"|(?:how|ways?|method)\s[^.!?]{0,25}(?:kill|hang|end|off|cut|drown|poison|shoot)\s(?:yourself|oneself|urself)"
        r"|bullet\s(?:in|into|through)\smy\s(?:head|brain|skull)|gun\sto\smy\s(?:head|temple)|(?:shoot|blow)\s(?:my\s)?(?:brains|head)\s(?:off|out)"
        r"|(?:stockpil|hoard|sav)(?:e|ed|ing)\s(?:up\s)?(?:my\s|the\s)?(?:pills|meds|tablets|sleeping\spills|painkillers)",
    ),
    _harm_en(
        r"(?:cut|cutting|slice|slicing|open)\s(?:\w+\s){0,2}(?:wrists?|veins?|arter(?:y|ies)|throat)|how\sdeep\s[^.!?]{0,30}cut|(?:hit|reach|find)\san?\s(?:artery|vein)"
        r"|cut\s(?:again|deep|deeper)|cutting\s(?:again|deeper)",
        not_in_sentence=_ACCIDENT_EN,
    ),
    _harm_en(
        r"(?:rope|cord|belt|cable)\s(?:[\w']+\s){0,4}(?:ceiling|fan|beam|rafter|neck)",
        not_in_sentence=r"(?<![a-z])(?:climb\w*|camp\w*|boat|tent|sail\w*|swing|tire|tyre|tow\w*|scouts?|hammock|laundry|clothes\w*|knots?)(?![a-z])",
    ),
    _harm_en(
        r"(?:drive|driving|drove|crash|crashing|swerve|swerving)\s(?:my\s)?(?:car\s)?(?:into|off)\s(?:a\s|the\s)?(?:wall|tree|truck|cliff|bridge|river|lake|pole|oncoming\straffic)",
        not_in_sentence=r"(?<![a-z])(?:almost|nearly|accident\w*|mistake|ice|icy|snow|skid\w*|brakes?|gta|games?|gaming|simulator|forza|mario\skart|racing)(?![a-z])",
    ),
    _harm_en(
        r"(?:jump|jumping|jumped|step|stepping|stepped|leap|leaping|throw(?:ing)?\smyself)\s(?:off|from|into)\s(?:\w+\s){0,3}"
        r"(?:bridge|building|roof|rooftop|balcony|cliff|ledge|window|tower|overpass|river|floor|parking\sgarage|edge)"
        r"|(?:jump|jumping|jumped|step|stepping|stepped|throw(?:ing)?\smyself|walk|walking|lie|lying|lay)\s(?:in\sfront\sof|under|onto|on)\s(?:\w+\s){0,2}(?:train|bus|truck|lorry|car|traffic|subway|tracks)"
        r"|walk(?:ing)?\sinto\s(?:traffic|the\s(?:sea|ocean|river|lake))|(?:jump|step|leap)\w*\soff(?=\s*(?:$|[,;…]|it|there|now|tonight))",
        not_in_sentence=_SPORT,
    ),
    _harm_en(
        r"(?:standing|sitting|stood|sat)\s(?:on|at)\s(?:the\s)?(?:edge|ledge|railing|bridge|roof|rooftop)(?=\s*(?:$|[,;…]|right\snow|now|again|tonight|of\s(?:the|a)\s(?:roof|bridge|building|cliff)))",
        not_in_sentence=_SIGHTS,
    ),
    # farewells, one's end, sleep without waking
    _harm_en(
        r"goodbye\sforever|this\sis\s(?:my\s)?goodbye(?!\sto)|(?:final|last)\sgoodbye"
        r"|(?:be|still\sbe)\salive\s(?:by|next|tomorrow|much\slonger|for\slong|after\stonight)"
        r"|(?:after|when|once)\si'?m\sgone(?!\s(?:for|on|to|away))|(?:after|when|once)\si\sdie|(?:stop|cease\sto)\sexist\w*|not\sexist(?:ing)?\sanymore|(?:disappear|vanish)\sforever"
        r"|(?:have|got|made|'ve\sgot)\sa\splan[^.!?]{0,40}(?:do\sit|go\sthrough\swith\sit|end\sit|follow\sthrough)(?![^.!?:]{0,12}:\s*\w)",
        implied=True,
    ),
    # not being here much longer (not tonight at work, not a contract or a move): "i'm not going to be around much longer"
    _harm_en(
        r"(?:won'?t|wont|will\snot|not\sgoing\sto|not\sgonna|n'?t\sgonna)\sbe\s(?:here|around|alive)\s(?:anymore|any\slonger|(?:for\s)?much\slonger|for\slong|after\stonight|by\s(?:tomorrow|morning))"
        r"(?!\s(?:tonight|today|this\s(?:evening|afternoon|morning)|at\swork))",
        not_in_sentence=_TRIP_EN
        + r"|(?<![a-z])(?:contract|lease|visa|internship|town|city|country|school|team|project)(?![a-z])",
        implied=True,
    ),
    _harm_en(
        r"never\s(?:wake|waking)\sup|(?:not|don'?t|won'?t|wouldn'?t)\s(?:ever\s)?wake\sup\s(?:again|ever)|sleep\sforever|fall\sasleep\s(?:and|&)\s(?:\w+\s)?never|never\s(?:open\smy\seyes|see\stomorrow)",
        not_in_sentence=_SLEEP_IN + r"|could\s(?:just\s)?sleep",
    ),
)
# A word is denied by what stands right before it in its clause: 我不想死, 我没有想过自杀, "I don't want to die".
_DENIED = re.compile(
    r"(?:不想|不要|不会|不能|不愿意?|不打算|不准备|不可能|没有?(?:想过?|打算|准备)?|从来?没有?(?:想过?)?|并没有(?:想过?)?|别|不用|才不会?|不是(?:要|想)?|绝不|决不)(?:去|要|再|会|过)?$"
    r"|(?<![a-z])(?:don'?t|do\snot|dont|didn'?t|did\snot|never|won'?t|will\snot|wouldn'?t|would\snot|not|no\slonger|isn'?t|wasn'?t|ain'?t)\s"
    r"(?:(?:ever|really|actually|even|want|wanna|wanted|to|plan|planning|intend|going|gonna|try|trying|think|thinking|about|of|be|been|feel|feeling|so|that)\s){0,4}$"
)
_SELF = re.compile(
    r"我|俺|咱|本人|老子|本宝宝|本姑娘|本小姐|本大爷|(?<![a-z])(?:i|i'm|im|i've|ive|i'd|i'll|me|my|myself|mine)(?![a-z])"
)
# someone of mine is someone else: 我朋友, 我妈, "my friend" (their words are theirs)
_THEIRS = re.compile(
    r"我(?:的|们的|们)?(?:朋友|同学|同事|室友|闺蜜|兄弟|哥们|妈|爸|父|母|哥|姐|弟|妹|爷|奶|外公|外婆|姥|叔|伯|姨|舅|姑|孩子|儿子|女儿|老公|老婆|男友|女友|男朋友|女朋友|对象|老板|老师|学生|邻居|家人|亲戚|猫|狗)"
    r"|我们(?:的)?[^,。!?]{0,3}课"
    r"|(?<![a-z])my\s(?:\w+\s)?(?:friends?|bff|bestie|brother|sister|mom|mum|mother|dad|father|parents?|grandma|grandpa|grandmother|grandfather|uncle|aunt|cousin|boyfriend|girlfriend|bf|gf|husband|wife|partner|son|daughter|kids?|child|teacher|boss|coworker|colleague|roommate|neighbou?r|classmate|dog|cat)(?![a-z])"
)
_OTHER_ZH = (
    r"他|她|它|你|您|别人|有人|某人|人家|网友|男子|女子|男孩|女孩|少年|少女|老人|明星|歌手|演员|患者|病人|朋友|同学|同事|室友|老板|老师|妈|爸|哥|姐|弟|妹|爷|奶|外公|外婆|姥|叔|姨|舅|姑"
    r"|孩子|儿子|女儿|老公|老婆|男友|女友|对象|角色|主角|男主|女主|人物|作者|主人公|凶手|嫌疑人|警方|反派|配角|屈原"
)
_OTHER = re.compile(
    _OTHER_ZH
    + r"|(?<![a-z])(?:he|she|they|him|her|them|his|their|hers|he's|she's|they're|someone|somebody|people|person|man|woman|guy|girl|boy|kid|kids|child|you|your|you're|u|ur|everyone|everybody)(?![a-z])"
)
# An English clause with no person named speaks of the speaker when it starts as a subjectless clause does
# ("wanna die", "planning to jump off the bridge") or asks how ("how many pills does it take to die").
_BARE_START = re.compile(
    r"\W*(?:(?:honestly|ngl|tbh|lol|idk|fr|like|ok|okay|yeah|so|just|really|literally|seriously|and|but|maybe|probably|still|already|tonight|today|tomorrow|rn|now)\s+)*"
    r"(?:want|wanna|gonna|going|planning|plan|thinking|think|trying|tried|ready|need|gotta|feel|feeling|been|keep|kept|wish|hope|might|should|will|can'?t|cant|cannot|don'?t|dont|didn'?t"
    r"|took|taking|bought|wrote|have|got|had|cut|cutting|jumped|standing|sitting|hate|done|tired|sick|never|almost|nearly|about|finally|writing|leaving|giving|gave|made|hoping|wishing|praying"
    r"|considering|decided|looking|searching|googling|researching|counting|saving|stockpiling|sorry|goodbye|bye|please|help|easier|better|rather|how|what'?s|whats|what|which|where|when|why"
    r"|is|does|do|would|could|can|best|easiest|quickest|fastest|painless|most|any|easy|quick|die|dying|end|ending|kill|killing|jump|jumping|overdose|overdosing|hang|hanging)(?![a-z])"
)
_QUESTION = re.compile(r"\W*(?:how|what'?s|whats|what|which|where|is|does|do|will|would|can|could|should)(?![a-z])")
_BURDENED = re.compile(r"(?:连累|拖累|麻烦|打扰|牵连|影响|吓到|伤害)(?:到)?(?:别人|家人|大家|任何人|他们|你们)")
_GENERIC_YOU = re.compile(r"(?<![a-z])(?:you|your|yourself|u)(?![a-z])")
# a word someone else owns: 外公的遗言, 主角自杀了, "his death"
_OWNED = re.compile(
    f"(?:{_OTHER_ZH})(?:临终前?|临走前|去世前|生前|走之前|留下)?的?$|(?<![a-z])(?:his|her|their|your|its|[a-z]+'s)\\s$"
)
_CJK_CHAR = re.compile(f"[{_CJK}]")
_LATIN = re.compile("[a-z]")


_BLANK = "\x00"
# Any word of any kind: one search that every sentence holding a word of `HARMS` passes (an alternation
# matches wherever one of its parts does), so most sentences are done with in one step.
_ANY_HARM = re.compile("|".join(f"(?:{harm.words.pattern})" for harm in HARMS))


def _masked(sentence: str) -> str:
    """The sentence with its idioms (and, in a game, its deaths) blanked out, each character kept in place."""
    masked = sentence
    if _CJK_CHAR.search(sentence):
        masked = _IDIOM_ZH.sub(lambda m: _BLANK * len(m.group()), masked)
    if _LATIN.search(sentence):
        masked = _IDIOM_EN.sub(lambda m: _BLANK * len(m.group()), masked)
    if _GAME_WORDS.search(masked):
        masked = _GAME_DEATH.sub(lambda m: _BLANK * len(m.group()), masked)
    if _JOKE_DEATH.search(masked) and (_LAUGH_RE.search(sentence) or _EXERTION_RE.search(sentence)):
        masked = _JOKE_DEATH.sub(lambda m: _BLANK * len(m.group()), masked)
    return masked


def speaks_of_harm(sentence: str) -> bool:
    """The general rule (see the module docstring): a clause of the sentence that speaks of the person themself
    holds a word of `HARMS` that is not part of an idiom and not denied."""
    if not _ANY_HARM.search(sentence):
        return False
    masked = _masked(sentence)
    for harm in HARMS:
        if not harm.words.search(sentence):
            continue
        if harm.not_in_sentence and harm.not_in_sentence.search(masked):
            continue
        if harm.needs and not harm.needs.search(masked):
            continue
        for match in harm.words.finditer(sentence):
            if _BLANK in masked[match.start() : match.end()]:
                continue
            start, end = _clause_span(sentence, match)
            before = masked[max(start, match.start() - 24) : match.start()]
            if _DENIED.search(before) or _OWNED.search(_THEIRS.sub("他", before)):
                continue
            if _role_owns(sentence, match.start()):
                continue
            if _of_self(masked[start:end], masked, implied=harm.implied):
                return True
    return False


def _of_self(clause: str, sentence: str, *, implied: bool) -> bool:
    """Whether the clause speaks of the speaker: a first person in it, else none of another in it, and then a
    first person in the sentence, else no one else and no story in the sentence, and a Chinese clause (which
    needs no subject), a subjectless English start, or words that imply the speaker."""
    clause, sentence = _THEIRS.sub("他", clause), _THEIRS.sub("他", sentence)
    # others whom one's death would burden are not its subject: 怎么死才不会连累别人
    clause, sentence = _BURDENED.sub("", clause), _BURDENED.sub("", sentence)
    if _QUESTION.match(clause):  # "how deep do you have to cut": anyone's you
        clause, sentence = _GENERIC_YOU.sub(" ", clause), _GENERIC_YOU.sub(" ", sentence)
    if _SELF.search(clause):
        return True
    if _OTHER.search(clause):
        return False
    if _SELF.search(sentence) or "自己" in clause:
        return True
    if _OTHER.search(sentence) or _STORY.search(sentence):
        return False
    return implied or bool(_CJK_CHAR.search(clause)) or bool(_BARE_START.match(clause))


def _clause_span(sentence: str, match: re.Match[str]) -> tuple[int, int]:
    breaks = [b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, match.start())]
    after = _CLAUSE_BREAK.search(sentence, match.end())
    return (breaks[-1] if breaks else 0, after.start() if after else len(sentence))


def crisis_in(text: str) -> bool:
    """True when the text states suicidal intent or ideation, or self-harm (see the module docstring)."""
    for sentence in _SENTENCE_BREAK.split(normalise(text)):
        chinese, latin = bool(_CJK_CHAR.search(sentence)), bool(_LATIN.search(sentence))
        if any((latin if phrase.english else chinese) and phrase.found_in(sentence) for phrase in PHRASES):
            return True
        if speaks_of_harm(sentence):
            return True
    return False


def _clause_around(sentence: str, match: re.Match[str]) -> str:
    breaks = [b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, match.start())]
    after = _CLAUSE_BREAK.search(sentence, match.end())
    return sentence[breaks[-1] if breaks else 0 : after.start() if after else len(sentence)]


def _role_owns(sentence: str, start: int) -> bool:
    """In a story, the words right before are a role's: 我演的角色最后自杀了, 女主最后死了."""
    if not _STORY.search(sentence):
        return False
    if _ROLE_BEFORE.search(sentence[max(0, start - 12) : start]):
        return True
    near = sentence[max(0, start - 6) : start]
    return sentence.startswith("死", start) and not _FIRST_PERSON.search(near) and bool(_NAMED_ROLE.search(near))


def _told_of_others(sentence: str) -> bool:
    return bool(_STORY.search(sentence)) and not _FIRST_PERSON.search(_THEIRS.sub("他", sentence))


def read_crisis_marker(text: str) -> tuple[str, bool]:
    """The model's reply without `CRISIS_MARKER` (never shown to the person), and whether it was there."""
    cleaned, count = _MARKER.subn("", text)
    return cleaned, count > 0


@dataclass(frozen=True)
class CrisisResource:
    """A line a person in crisis can reach. `source`: where the number was checked, and when."""

    name: str
    phone: str
    url: str
    hours: str
    source: str


_CHECKED = "checked 2026-12-01 through stored copies of these pages"
DEFAULT_RESOURCES: dict[str, tuple[CrisisResource, ...]] = {
    "zh-CN": (
        CrisisResource(
            "全国统一心理援助热线（中国大陆）",
            "12356",
            "",
            "每条热线每天不少于18小时，多地24小时",
            "人民网 2024-12-27 http://gs.people.com.cn/BIG5/n2/2024/1227/c183356-41089989.html (国家卫健委设置12356为全国统一"
            "心理援助热线，2025年5月1日前各地接通，每天不少于18小时); 中国新闻网 2025-12-26 (read through a copy): 各地均已开通运行; "
            + _CHECKED,
        ),
        CrisisResource(
            "北京心理危机研究与干预中心（北京市心理援助热线）",
            "010-82951332",
            "",
            "24小时",
            "北京回龙观医院 https://bhlgh.com/xwdt/yydt/14048.shtml (a page of 2014-02-08: 8008101117 座机拨打, 01082951332 "
            "手机拨打, 全天候24小时); not verified here that it still answers today; " + _CHECKED,
        ),
        CrisisResource(
            "希望24热线（生命危机干预）",
            "400-161-9995",
            "",
            "24小时",
            "青年报 2023-07-17 http://www.why.com.cn/wx/article/2023/07/17/16895743881344178128.html (400-161-9995, 24小时"
            "危机干预热线, volunteers); 青年报 2023-07-06: about half the calls could not be answered; " + _CHECKED,
        ),
        CrisisResource(
            "110 报警（有人有生命危险时）",
            "110",
            "",
            "24小时",
            "南通12320卫生热线 http://jxjw.net/p/188393 (发现自杀、坠楼…应拨打110); Chinese Wikipedia, 112 (求救电话), "
            "2024-04 copy: 中国大陆 110 公安, 120 急救; " + _CHECKED,
        ),
        CrisisResource(
            "120 医疗急救",
            "120",
            "",
            "24小时",
            "Chinese Wikipedia, 112 (求救电话), 2024-04 copy: 中国大陆 120 急救; http://www.wwpfw.com/gongjijindaikuan/53132.html "
            "(120 全国统一急救电话, 24小时); " + _CHECKED,
        ),
    ),
    "en-US": (
        CrisisResource(
            "988 Suicide & Crisis Lifeline (US)",
            "988",
            "https://988lifeline.org",
            "24/7: call or text 988, chat at 988lifeline.org",
            "Wyoming Department of Health https://health.wyo.gov/publichealth/prevention/wivpp/suicide-prevention/988-suicide-crisis-lifeline "
            "(call or text 988, chat 988lifeline.org, 24/7); CDCR 2022-07-19 https://www.cdcr.ca.gov/ccjbh/2022/07/19/"
            "dial-988-to-access-24-hour-emotional-support-and-resources/; " + _CHECKED,
        ),
        CrisisResource(
            "911 Emergency services (US), in immediate danger",
            "911",
            "",
            "24/7",
            "Wyoming Department of Health https://health.wyo.gov/publichealth/prevention/wivpp/suicide-prevention/988-suicide-crisis-lifeline "
            "(in immediate danger of harming themselves, call 911); " + _CHECKED,
        ),
    ),
    "*": (
        CrisisResource(
            "Your local emergency number (当地的紧急电话) — helplines in 130+ countries at findahelpline.com",
            "",
            "https://findahelpline.com",
            "24/7",
            "no number on purpose: it differs by country. findahelpline.com: ThroughLine's directory of verified helplines "
            "(LifeLine International, 2024-04: 1,300 services in 130 countries, "
            "https://lifeline-international.com/from-idea-to-impact-how-throughline-is-bridging-the-gap-in-global-crisis-support/); "
            + _CHECKED,
        ),
    ),
}


def resources_for(locale: str, table: Mapping[str, Sequence[CrisisResource]]) -> list[CrisisResource]:
    """The entries for `locale` (zh-CN, zh_cn: case and separator do not matter), else those of the
    closest locale of the same language (zh-TW without its own entries gets zh-CN's, en-GB en-US's:
    a line in another country may not connect, so each name says its country, and the generic entry
    follows), then always the generic "*" entries, without repeats."""
    closest = _closest(_subtags(locale), table)
    chosen = table[closest] if closest else ()
    return list(dict.fromkeys([*chosen, *table.get("*", ())]))


def _subtags(locale: str) -> tuple[str, ...]:
    return tuple(locale.strip().replace("_", "-").casefold().split("-"))


def _closest(wanted: tuple[str, ...], table: Mapping[str, Sequence[CrisisResource]]) -> str | None:
    """The key equal to `wanted`, else the one of its language sharing most subtags (the first of equals)."""
    same_language = [key for key in table if key != "*" and _subtags(key)[0] == wanted[0]]
    ranked = sorted(same_language, key=lambda key: (_subtags(key) != wanted, -len(set(_subtags(key)) & set(wanted))))
    return ranked[0] if ranked else None


_LOCALE = re.compile(r"\*|[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
_FIELDS = ("name", "phone", "url", "hours", "source")
_REQUIRED = ("name", "source")  # a number nobody can trace back cannot be checked again


def parse_resources(raw: Mapping[str, object]) -> dict[str, tuple[CrisisResource, ...]]:
    """An operator's table, JSON-shaped: {"zh-CN": [{"name", "phone", "url", "hours", "source"}, ...],
    "*": [...]}. `name` and `source` are required, the other fields default to "". The "*" entries are
    required too: they are what a person of any other locale sees. Raises ValueError saying what is wrong."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"crisis resources must be an object of locale -> list of resources, not {type(raw).__name__}")
    table = {_checked_locale(locale): _parsed_entries(str(locale), entries) for locale, entries in raw.items()}
    if "*" not in table:
        raise ValueError('crisis resources need a "*" entry: what every other locale sees (the local emergency number)')
    return table


def is_locale(text: str) -> bool:
    """Whether the text is a locale tag such as zh-CN, en_US or en (what a person may choose)."""
    return text != "*" and _LOCALE.fullmatch(text) is not None


def _checked_locale(locale: object) -> str:
    if not isinstance(locale, str) or not _LOCALE.fullmatch(locale):
        raise ValueError(f'crisis resources: {locale!r} is not a locale (like "zh-CN", "en" or "*")')
    return locale


def _parsed_entries(locale: str, entries: object) -> tuple[CrisisResource, ...]:
    if not isinstance(entries, list) or not entries:
        raise ValueError(
            f"crisis resources for {locale}: give a list of at least one resource, or leave the locale out"
        )
    return tuple(
        _parsed_entry(f"crisis resources for {locale}, entry {i + 1}", entry) for i, entry in enumerate(entries)
    )


def _parsed_entry(where: str, entry: object) -> CrisisResource:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: must be an object with {', '.join(_FIELDS)}")
    unknown = sorted(str(key) for key in entry if key not in _FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(_FIELDS)})")
    values = {field: entry.get(field, "") for field in _FIELDS}
    for field, value in values.items():
        if not isinstance(value, str):
            raise ValueError(f"{where}: {field} must be a string, not {type(value).__name__}")
    missing = [field for field in _REQUIRED if not str(values[field]).strip()]
    if missing:
        raise ValueError(f"{where}: {' and '.join(missing)} must not be empty")
    return CrisisResource(**{field: str(value).strip() for field, value in values.items()})


_HUMAN_QUESTION = re.compile(
    r"(你|妳|您)\s*(到底|究竟|真的)?\s*(是|是不是)\s*(个|一个)?\s*(真人|真的人|人类|机器人|ai|人工智能|程序|bot)"
    r"|(是|是不是)\s*(真人|机器人|ai)\s*(在|跟我|和我)?\s*(聊|说|回)"
    r"|are\s+you\s+(really\s+|actually\s+)?(a\s+|an\s+)?(real|human|actual|bot|robot|ai\b|person|machine)"
    r"|am\s+i\s+(talking|chatting|speaking)\s+(to|with)\s+(a\s+|an\s+)?(real|human|person|bot|robot|ai\b|machine)",
    re.IGNORECASE,
)


def asks_if_human(text: str) -> bool:
    """A sincere question whether a person is on the other side ("你是真人吗", "are you a real person"):
    always answered, and honestly (the chat turn repeats the instruction for it)."""
    return bool(_HUMAN_QUESTION.search(normalise(text)))
