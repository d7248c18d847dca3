"""A second net for a crisis: classes of cues that together say what no phrase family foresaw.

`signals_crisis(text)` is True when a message combines cues that, together, state suicidal intent, a
plan, a farewell or self-harm, in Chinese (simplified or traditional) or English, however it is worded.
It is independent of the lexicon in `safety` (it shares only `safety.normalise`) and is meant to be OR-ed
with it: `crisis_seen(text)` is `crisis_in(text) or signals_crisis(text)`. Where the lexicon matches
phrases, this module matches classes of words and fires when two classes meet in one sentence, or in a
short message (at most three sentences and 160 characters), and no everyday counter-cue of the class is
in the same span:
- a means or a place of harm (绳子, 安眠药, 药, 刀片, 枪, 子弹, 楼顶, 天台, 几楼, 江边, 河边, 铁轨, 车流, 煤气, 瓦斯,
  炭; rope, noose, pills, tylenol, advil, razor, blade, knife, gun, revolver, bridge, building, "what floor", "30 floors",
  roof, river, tracks, train, traffic, gas) with a
  strong cue of intent (都攒好了, 全部吃掉, 一整瓶, 一直走进去, 冲过去, 不回来了, 别找我, 挂好, 封好, 躺着等, 门窗关死,
  才不会醒, 活不下来, 找个能挂的地方; for good, made up my mind, tied, saved up, lined up, "you know what for", "all of
  it", "the whole bottle", "not coming down", "took all my meds at once", "how many would it take", driving
  into, stepping out, "lying here waiting", "so you dont survive", "find the right spot", "strong enough to
  hold", "thinking about using it"), a method worked out (想好怎么做了, "figured out how im gonna do it") or two
  weak ones (今晚, 这次, 够了, 准备好了, 就这样, 决定了, 手里, 站在, 躺在, 开着, 我现在在, 最高, 没锁, 数了, 是认真的, 上了膛,
  面前; tonight, this time, enough, ready, decided, counted, loaded, holding, "in my hand", rn, "I'm on", "how
  high", "in front of me", "on my lap", "right here", "in my drawer", "on my nightstand", "40 of them"); or the car running in a closed garage
  with the door shut or a method worked out (not warming it up, a garage sale, a fix); spoken by the person (a first person, or no one else named: 他, she, 男主, "my sister" are
  someone else), and not in a kitchen, a clinic, a hobby, a trip, a game or a story (攀岩, 烧烤, 露营, 医院, 头疼,
  布洛芬, 钓鱼, 散步, 看星星, 游戏, 剧, 水开, 吊床; climbing, camping, headache, organiser, onions, shaving, game,
  level, fixing, commute, "killing me", pasta water, a hammock, a nerf or nail gun, the range);
- things given away, settled or destroyed (送人, 送给, 转给, 托付, 密码发给, 存款都转给, 日记都烧了, 注销, 东西都整理好了;
  gave away, gave my cat, sent my passwords, transferred my savings, cancelled my phone plan, accounts closed)
  with a cue that the person will not be there to need them (用不到了, 用得上, 没什么牵挂了, 不用她操心我了, 过了这个
  周末, 我走了以后, 就剩走这一步了; "won't be around", "won't need", "when I'm gone", "after this weekend", "better off
  with her than with me", "nothing left to do but go"), not a move, a trip, a donation, a tidy-up or a
  purchase (搬, 出差, 捐, 断舍离, 理财, 买房; moving, charity, a new one, roommate, "since i got a car"); an absence
  for good (没什么牵挂了, 我不会在了, "than with me") outweighs a donation or a roommate, never a move or a trip;
- a farewell to the companion itself at a message's start or end (goodbye, bye, 再见了, 永别, "bye forever")
  with thanks for its company over time or for everything (谢谢你一直陪我, "thank you for always
  listening", "thanks for everything", "for being there", "the only one who listened"), and nothing that sets a
  next time or a reason to leave or a light tone (明天见, 晚安, 下次, 去上课, 这个问题, 哈哈, "talk tomorrow", "see you",
  "for now", a shift, a class, lol, a birthday), nor a thing or a time said goodbye to (再见了我的青春, "goodbye
  stress", "goodbye 2025"); words of finality stand in for the thanks (原谅我, 撑不住, 最后, "sorry for everything",
  "done with everything", "last message", "the last time we talk");
- last words: letters written to one's family or everyone, to be found later or left sealed (写好了给爸妈的信
  明天他们就会看到, 给家人的信都封好了, "wrote letters to everyone I love, they'll find them tomorrow", "sealed on my
  desk"), not a card, a birthday, a surprise, a pen pal, a letter to be mailed; a message to pass on if one
  is not here tomorrow (如果我明天不在了 告诉我妈我爱她, "if i'm not here tomorrow, tell my sister i loved her"), not
  a dentist, an exam, a trip; life insurance with the person worth more gone ("at least id be worth something
  then", 起码我还值点钱), not a policy bought; an
  apology to one's family or everyone whose last words are that one has no strength left (妈妈 对不起 我实在
  撑不住了, "sorry mom, I can't go on"), not when a cause or a plan follows (直播撑不下去了 嗓子哑了, 先睡了,
  "the piano lessons"); painless ways to go (无痛地离开, "painless ways to go"), 再也不想看到明天;
- a plan and its time (round 3): a plan worked out (想好怎么做了, 计划好了, "planned it out") with its time set or a
  time when no one is there (时间就定在周五晚上, 那天家里没人, "saturday when my roommates are away", "when
  everyone's asleep"), not a surprise, a party, a trip, a date or an exam; steering into a truck, a barrier or the
  traffic with an end to it (冲向那辆卡车就好了 一了百了, "swerving into the median and ending it"), not a game, a
  near miss or a deer; not being around much longer and at peace with it (待不了多久了 我已经想开了, "i've made
  peace with it"), not a contract, a visa, a move or tonight; a pet handed on with thanks for the companion's
  time (把猫托付给室友了 谢谢你陪了我这么久), or looked after "better than i ever could"; knowing where one will do
  it with a means named (绳子买好了 我知道在哪里做, "i already know where i'm going to do it"); "if i'm not here
  tomorrow, it wasn't your fault" (不是你的错) as a message to pass on, not when the network or a dentist is why;
- a reason to live denied in any wording (活着没有意义, 没有活下去的理由, 活下去的意义找不到, 为什么还要活着,
  想结束这一切, 不想存在了; "no reason to keep living", "don't see a reason to live", "nothing (left) to
  live for", "tired of existing", "make it all stop for good", "the only way out is ending it", "end it
  all", "why should I keep living"), not "nothing to live for except pizza", "tired of existing in this
  group chat", "end it all with a bang" of a season's finale, 这份工作没有意义;
- self-harm as an ongoing act, in any verb: hitting, banging, scratching, cutting, burning, biting
  oneself or one's arms, head, wrists, with a cue that it goes on (again, until it bleeds, every night,
  "with a lighter"); sh'd, sh-ing, "sh urges"; relapsed with a clean streak; 伤害自己, 自残, 自伤,
  掐/咬/抓/撞/割/划/烫 自己 or one's arm until it bleeds (出血, 流血, 血止不住, 才停), a new wound on one's arm still
  bleeding, carving or cutting into one's arm or thigh (在手臂上刻, "carved into my arm with a razor"); not
  mosquito bites, shaving, a pan, a pumpkin, 掐自己一下 to see if one dreams, 咬到舌头, a relapse on sugar or a diet;
- online slang, read on the text before normalising: ctb, kms, unalive, sewerslide, 紫砂 and 自鲨 (not
  紫砂壶), "yeet myself off"; not "what does ctb mean", 300 kms, "yeet the ball".

Not recognised on purpose: a means with no cue of intent (我买了一把刀, "the knife is so sharp"), a
place with no intent ("standing on the bridge, the view is great"), a farewell without thanks for the
companion's time ("ok thanks bye"), a thing given away with no cue of absence ("gave my cat to my
sister"), "I won't be around" alone (a trip), a plan or a purchase named without its object ("my plan
is set for friday night", 我已经查好了哪里买得到), going somewhere for ever (想去一个没有痛苦的地方 永远不回来:
as of an emigration), voices heard. These overlap too much with everyday speech to fire on
one cue; the lexicon and the chat model's `CRISIS_MARKER` stay the nets for them.

About 0.2 ms for 200 characters (timeit: 0.23 ms of everyday Chinese, 0.21 ms of English), most of it
`safety.normalise`: a few compiled searches per sentence, the counter-cues only read
after a pair of classes has met.
"""

from __future__ import annotations

import re
import unicodedata

from dreamchat.domain import safety


def _any(*words: str) -> re.Pattern[str]:
    return re.compile("|".join(words))


_FIRST_PERSON = re.compile(
    r"我(?!妈|爸|哥|姐|弟|妹|朋友|同学|室友|老公|老婆|男朋友|女朋友)|(?<![a-z'])(?:i|i'm|im|i've|ive|i'll|ill|me|my|myself|mine)(?![a-z'])"
)
_SOMEONE_ELSE = re.compile(
    r"他|她|它们|男主|女主|主角|角色|人物|(?<![a-z])(?:he|she|they|his|her|their|the character)(?![a-z])"
    r"|(?<![a-z])my (?:sister|brother|mom|mum|dad|friend|roommate|neighbou?r|cousin|son|daughter|wife|husband|bf|gf)"
)

# --- a means or a place of harm, and a cue of intent ------------------------------------------------
_MEANS = _any(
    r"绳|上吊|安眠药|药|刀片|刀|枪|楼顶|顶楼|天台|阳台|窗台|窗边|窗户|窗外|桥|江边|河边|湖边|海边|江里|河里|铁轨|轨道|火车|车流|马路|煤气|瓦斯|天然气|燃气|炭|农药|子弹|几楼|几层|多少层|多高的楼",
    r"(?<![a-z])(?:rope|noose|pills?|tablets|tylenol|paracetamol|advil|ibuprofen|aspirin|xanax|meds|medicine cabinet|antidepressants|painkillers|razor|blades?|knife"
    r"|gun|pistol|revolver|rifle|shotgun|bridge|building|(?:what|which|how many|\d+) (?:floors?|stories|storeys)|gas"
    r"|roof(?:top)?|ledge|cliff|river|tracks|train|traffic|overpass|balcony)(?![a-z])",
)
# A strong cue of intent is enough with a means; a weak one (tonight, this time, ready) needs another beside it.
_INTENT_STRONG = _any(
    r"攒好了|攒了|都攒|全部吃|全吃|一起吃了|吃掉|一直走|走进去|走下去|跳下去|冲过去|冲出去|冲进|冲向|开进|跳进|撞向|一整板|一整瓶|一整盒"
    r"|不回头|不回来|不下去|封好|挂好|别找我|不会停|等.{0,6}火车|存够了|囤"
    # lying down to wait (瓦斯开了 我躺着等), sealed in, a dose or a height that leaves no waking, a place to hang
    r"|躺(?:着|在)[^,。]{0,8}等|等着睡过去|门窗(?:都)?关(?:好|紧|死)|关(?:好|紧|死)门窗|才(?:不会|不|能)(?:醒|活)|不会醒过来|醒不过来|不会?活下来|活不下来"
    r"|找[^,。]{0,4}(?:合适|能挂|隐蔽|没人)的?地方|能挂的地方|挂得住",
    r"(?<![a-z])(?:for good|made up my mind|(?:i'?ve|ive|i have) decided(?! to| on| what| which| that| how)|tied|saved up|stockpil\w*|hoard\w*|lined up|you know what for|all of (?:it|them)|take (?:them )?all|the whole bottle"
    r"|whole bottle|not coming (?:down|back|home)|(?:took|take|taking|swallowed) all (?:my|the|of my) \w+ at once"
    r"|swallow\w* (?:everything|all|the whole)|how many .{0,25}(?:would|does it|it would|to|would it|will it|does it) take"
    r"|lying (?:here |there |down )?(?:and )?waiting|(?:don'?t|dont|won'?t|wont|not|never) survive|survive the fall|kills? (?:you|me) for sure"
    r"|(?:find|need|looking for) (?:the right|a good|a) (?:spot|place|beam|tree|branch)|(?:spot|place) where nobody|strong enough to hold|beam strong enough"
    r"|somewhere to hang|shut (?:my|your|the) \w+ down|(?:thinking|think) about using (?:it|them)|use it on myself"
    r"|(?:driving|drive|stepping|step|walking|walk|jumping|jump|throw(?:ing)? myself) (?:into|in front of|off|out))(?![a-z])",
)
_INTENT_WEAK = _any(
    r"今晚|今天晚上|这次|够了|准备好了|准备好|就这样|决定了|手里|拿着|握着|全部|一次性|最后一次|结束|水很深|很久"
    # being at the place, checking it, finding it open, counting out
    r"|我现在在|站在|坐在|躺在|开着|最高|多高|多深|够高|没锁|就去|倒出来|数了|认真的"
    r"|面前|腿上|身边|旁边|抽屉里|枕头下|上了膛|上膛|装好子弹",
    r"(?<![a-z])(?:tonight|this time|enough|ready|decided|counted|loaded|in my hand|holding|at once|goodbye|last time"
    r"|end it|finally|right now|rn|it'?s ok|its ok|i'?m on|im on|standing on|sitting on|parked on|lying on|how high|how tall"
    r"|how deep|in front of me|on my lap|next to me|right here|in my drawer|under my pillow|on the table|on my nightstand|(?:\d{2,}|thirty|forty|fifty) of them)(?![a-z])",
)
_MEANS_COUNTER = _any(
    r"攀岩|登山|烧烤|露营|野营|医院|医生|开药|买药|感冒|发烧|头疼|头痛|牙疼|布洛芬|维生素|钓鱼|散步|看星星|星星|风景|花园|晾|做饭|切菜|厨房"
    r"|游戏|剧|电影|小说|动漫|费|过马路|晚点|旅游|出差|面试|考试|演出|演唱会|烟花|跳绳|跳水|补课|上班|下班|通勤|堵车|水开|烧水|外卖|搬|洗车|热车|晾衣|吊床|秋千|帐篷|收拾"
    r"|牛排|炒|煮|烤|菜|肉|水果|蛋糕|作业|抹布|擦|晒|跑步|夜跑|晨跑|骑车|锻炼|健身|游泳|拍|夜景|照片|摄影|复查|检查|体检|住院|出院|奶奶|爷爷|外婆|外公|孩子|宝宝|宠物",
    r"(?<![a-z])(?:climb\w*|gym|camp\w*|hik\w*|headache|migraine|fever|cold|flu|prescri\w*|doctor|pharmac\w*|vitamins?"
    r"|organi[sz]er|onions?|cook\w*|kitchen|chop\w*|shav\w*|dish\w*|game|gaming|level|movie|film|show|episode|fixing|fix"
    r"|antenna|repair\w*|commute|concert|jam|killing me|late|delayed|of life|fishing|boat|view|sunset|photos?|jump rope"
    r"|skipping|cardio|workout|ticket|station|catch(?:ing)? the train|on time|work|bungee|next (?:week|month|year)|trip"
    r"|bar|pub|club|party|restaurant|friends|weekend|omw|on my way|be there|heading|arriv\w*|kayak\w*|instead|spreading|by mistake|accidentally|oops|forgot|range|hunting|skat\w*|competition|match|race|tournament|practice|airsoft|paintball|carv\w*|turkey|roast\w*|thanksgiving|fireworks?|countdown|stars|moon|stargaz\w*"
    r"|pasta|water|boil\w*|stove|grill|hammock|swing|tent|laundry|clothes\w*|sale|wash\w*|warm\w* up|skyscraper|nail|glue|nerf|toy|squirt|fence"
    r"|presentation|station|prices?|tank|mileage)(?![a-z])",
)

# a method worked out, with a means named after it (the garage and the car running, the bridge on 5th)
_METHOD_KNOWN = _any(
    r"想好(?:了)?(?:要)?怎么|想清楚(?:了)?怎么|知道(?:要|该)?在哪(?:里|儿)?(?:做|动手|结束)|知道(?:该|要)?怎么(?:做|走|结束|离开)了|决定(?:好)?(?:了)?用什么|找到(?:了)?办法",
    r"(?<![a-z])(?:(?:figured|worked|found) out how|know (?:how|what|where|when) (?:i'?ll|i will|im|i'?m gonna|i'?m going to|to)|decided how)(?![a-z])",
)
# a plan worked out with its time set or a time when no one is there: 想好怎么做了 时间就定在周五晚上
_PLANNED = _any(
    r"想好(?:了)?(?:要)?怎么(?:做|办|弄|走)|计划好了|都计划好了|已经计划好",
    r"(?<![a-z])(?:planned it (?:all )?out|have it (?:all )?planned(?: out)?|got it (?:all )?planned|it'?s (?:all )?planned)(?![a-z])",
)
_TIME_ALONE = _any(
    r"时间(?:就)?定(?:在|好)|就定在|(?:家里|宿舍|屋里)没人|(?:都)?(?:不在家|出门|睡着)(?:了)?(?:的时候|以后|之后)",
    r"(?<![a-z])(?:when (?:my \w+ (?:are|is) (?:away|out|gone|asleep)|no ?one(?:'s| is) (?:home|around|here)|everyone(?:'s| is) (?:asleep|gone|away|out)"
    r"|i'?m alone|nobody(?:'s| is) (?:home|around)))(?![a-z])",
)
_PLANNED_COUNTER = _any(
    r"惊喜|生日|派对|聚会|求婚|表白|约会|爬山|旅游|旅行|出去玩|吃饭|搬家|考试|复习|装修|面试",
    r"(?<![a-z])(?:surprise|party|birthday|proposal|propose|date|trip|dinner|movie|game|study\w*|exam|prank|cleaning|clean|cook\w*|bake|gift)(?![a-z])",
)
# steering into a truck or the traffic and ending it: 要是我直接冲向那辆卡车就好了 一了百了
_CRASH_INTO = _any(
    r"(?:冲向|冲到|撞向|撞上|冲进|开进|开向|冲出)[^,。]{0,6}(?:卡车|货车|大车|车流|汽车|对面的车|护栏|隔离带|桥墩|火车)",
    r"(?<![a-z])(?:swerv\w*|driv\w*|crash\w*|steer\w*|veer\w*) (?:into|in front of) (?:the |a |an |that )?(?:oncoming |next )?(?:median|truck|traffic|wall|tree|barrier|guardrail|bus|train|lane)(?![a-z])",
)
_ENDING = _any(
    r"一了百了|就好了|就结束了|结束这一切|算了",
    r"(?<![a-z])(?:(?:and )?(?:just )?end(?:ing)? (?:it|everything|things)|be over|wouldn'?t have to)(?![a-z])",
)
_CRASH_COUNTER = _any(
    r"游戏|差点|吓死|梦|剧|电影",
    r"(?<![a-z])(?:gta|games?|gaming|almost|nearly|deer|dream\w*|movie|show|simulator|ice|icy)(?![a-z])",
)
# not being here much longer, at peace with it: 我在这个世界上待不了多久了 我已经想开了
_NOT_LONG = _any(
    r"(?:在这个世界上|在这世上|在世上)?(?:待|呆|活)不了(?:多久|太久|几天)了?|(?:陪|在)不了你们?(?:多久|太久)了",
    r"(?<![a-z])(?:not (?:going to|gonna) be (?:around|here) (?:for )?much longer|won'?t be (?:around|here) (?:for )?much longer)(?![a-z])",
)
_AT_PEACE = _any(
    r"想开了|接受了|释怀|不怕了|很平静|没关系的",
    r"(?<![a-z])(?:made (?:my )?peace|at peace|accepted it|it'?s (?:fine|okay|ok)|i'?m ready)(?![a-z])",
)
_NOT_LONG_COUNTER = _any(
    r"公司|合同|签证|离职|辞职|搬|出国|城市|实习|学校|毕业|宿舍|群",
    r"(?<![a-z])(?:contract|lease|visa|job|company|moving|move|school|semester|internship|tonight|town|city|team)(?![a-z])",
)
# exhaust in a closed garage: the car running there and the door shut
_EXHAUST = _any(
    r"车库[^。]{0,30}(?:车|发动机)[^。]{0,6}(?:开着|没熄火|发动)|(?:车|发动机)[^。]{0,6}(?:开着|没熄火)[^。]{0,30}车库",
    r"(?<![a-z])(?:garage[^.]{0,40}(?:car|engine)[^.]{0,12}(?:running|idling|on)|(?:car|engine)[^.]{0,12}(?:running|idling)[^.]{0,40}garage"
    r"|(?:car|engine)[^.]{0,20}closed garage|closed garage[^.]{0,20}(?:car|engine))(?![a-z])",
)
_SHUT = _any(
    r"门(?:窗)?(?:都)?关(?:着|好|紧|死)",
    r"(?<![a-z])(?:doors? (?:is |are )?(?:shut|closed)|closed garage|shut the door)(?![a-z])",
)

# --- things given away or settled, and a cue of absence --------------------------------------------
# an absence for good, stronger than a donation's everyday look
_FOR_GOOD_ZH = (
    r"没什么牵挂|没有牵挂|没牵挂|没有?什么放不下|不会在了|我不在了|不用.{0,2}(?:操心|担心)我|不会再(?:烦|麻烦|打扰|拖累)(?:任何人|你们|大家|别人)"
    r"|比跟着?我好|比在我这好|没有我(?:会)?更好|比我(?:照顾得|对它|对她|对他|养得)?(?:更)?好"
)
_FOR_GOOD_EN = (
    r"than with me|(?:care of|look after|looks after) (?:him|her|it|them) (?:better|way better|much better) than i (?:ever )?(?:could|can|did)|better off without me|when i'?m gone|after i'?m gone|won'?t be (?:around|here) (?:after|anymore|much longer)"
    r"|(?:all|everything)[^.]{0,30}won'?t (?:be )?need\w*|nothing left (?:for me )?to do (?:but|except) (?:go|leave|die)(?! to| home| out| shopping| back)"
)
_FOR_GOOD = _any(_FOR_GOOD_ZH, rf"(?<![a-z])(?:{_FOR_GOOD_EN})(?![a-z])")
_GIVEN = _any(
    r"送人|送给|送走|转给|都烧了|都删了|都销毁|都清空|转到.{0,4}(?:账户|卡)|托付|交给|留给|过户|密码.{0,6}(?:发|给|告诉)|(?:发|给|告诉).{0,6}密码"
    r"|(?:存款|积蓄|钱|工资卡|银行卡)[^,。]{0,6}(?:给|转)|(?:给|转)了?[^,。]{0,4}(?:存款|积蓄)|注销|都分完了|都整理好了|都安排好了|东西都(?:送|分|整理|收拾)|捐了|捐掉|捐给",
    r"(?<![a-z])(?:gave|give|giving|given) (?:away|my|all my|him my|her my)|sent (?:my|all my) (?:passwords?|logins?)"
    r"|passwords? (?:sent|to)|left (?:my|all my) .{0,20} to|signed over|rehom\w*|transferred (?:all )?(?:of )?my (?:savings|money)"
    r"|cancell?ed my (?:phone|plan|accounts?|lease|subscriptions?)|(?:deleted|closed) (?:all )?my accounts|accounts? (?:closed|deleted|cancell?ed)|everything(?:'s| is) sorted|sold everything|gave away|donat\w* (?:all )?(?:of )?my",
)
_ABSENT = _any(
    r"用不到|用不上|不需要了|没人需要|没必要留|过了今晚|今晚以后|今晚过后|没什么牵挂|没有牵挂|没牵挂|不用操心我|不用担心我|不用再操心|以后.{0,6}不在|我走了以后|我走以后|我不在了|过了这个周末|这个周末以后|以后就没"
    r"|没什么需要我|再也不|用得上|用得着|就剩(?:下)?走|该走了\W*$|只剩(?:下)?走" + "|" + _FOR_GOOD_ZH,
    r"(?<![a-z])(?:won'?t be (?:around|here|there)|wont be (?:around|here)|not be (?:around|here)|won'?t need|wont need|won'?t be needing|wont be needing|after tonight"
    r"|when i'?m gone|after i'?m gone|after this weekend|much longer|no longer need|not going to need|sort things out"
    r"|take care of (?:her|him|them|it) (?:for me )?(?:after|when)|anymore|need it more than me|"
    + _FOR_GOOD_EN
    + r")(?![a-z])",
)

# a pet handed on (with thanks for the companion's time: a farewell)
_PET_GIVEN = _any(
    r"(?:猫|狗|仓鼠|兔子|鹦鹉|鱼|宠物|猫咪|狗狗)[^,。]{0,6}(?:送给|送人|托付|交给|留给)|(?:送给|托付给|交给|留给)[^,。]{0,8}(?:猫|狗|仓鼠|兔子|鹦鹉|宠物)",
    r"(?<![a-z])(?:gave|given|giving|left|rehomed) (?:away )?(?:my )?(?:cat|dog|kitten|puppy|hamster|rabbit|bunny|parrot|bird|fish|pets?)(?![a-z])",
)
# a donation, a tidy-up, a sale or a roommate's wifi: everyday, unless the absence is for good (没什么牵挂了, than with me)
_GIVEN_COUNTER = _any(
    r"捐|断舍离|换新|新手机|理财|新的|换了|二手|闲置|室友|wifi|学费|房租|生日|买房|买车|装修|首付|结婚|彩礼|看病",
    r"(?<![a-z])(?:charity|donat\w*|new one|roommate|wifi|declutter\w*|sold|sell\w*|upgrade\w*|yield|invest\w*|rent|tuition"
    r"|got a|bought a|new|since|because|outgrew|too small|never use|don'?t use)(?![a-z])",
)
# a move, a trip, a few days away: everyday whatever else is said
_AWAY_COUNTER = _any(
    r"搬家|搬去|搬到|出差|旅游|旅行|出国|留学|出门|几天|一周|一个月|机场|报到|新公司|寄养",
    r"(?<![a-z])(?:moving|move|trip|travel\w*|vacation|holiday|abroad|for the week|few days|work|airport|camping|new york)(?![a-z])",
)

# --- a farewell to the companion with thanks for its time ------------------------------------------
# a farewell that starts the message and is not said to something named after it (goodbye stress, 再见了我的青春)
_FAREWELL_START = re.compile(
    r"^\W*(?:(?:goodbye|good bye|farewell|bye forever)(?:\W*$|[\s.,!~…]+(?:thank|thanks|ty|i |i'm|谢谢|感谢|你|我(?!的)))"
    r"|(?:再见了|再见|永别了|永别|别了)\W*(?:$|thank|thanks|谢谢|感谢|你|我(?!的)))"
)
_FAREWELL_END = re.compile(
    r"(?:goodbye|good bye|farewell|bye forever|forever|(?<![a-z])bye|再见了|再见|永别了|永别|别了|this is goodbye)\W*$"
)
_THANKS_OVER_TIME = _any(
    r"谢谢你?.{0,12}(?:一直|这段时间|这么久|陪我|陪着我|所有|一切|听我)|你是唯一|感谢你?.{0,12}(?:一直|陪|一切)",
    r"(?<![a-z])(?:thank you|thanks|thank u|thx|ty)(?![a-z]).{0,30}(?:always|everything|all this time|being there"
    r"|listen\w*|being my|been there|all the|so long|these months|the only one|cared|caring)",
)
# or a farewell with words of finality instead of thanks
_FAREWELL_FINAL = _any(
    r"对不起大家|对不起(?:爸|妈)|原谅我|撑不住|撑不下去|累了|最后",
    r"(?<![a-z])(?:sorry for everything|forgive me|done with (?:everything|it all|life|all of this)|last message|for the last time"
    r"|(?:the )?last time (?:we|i|you and i) (?:talk|speak|chat)\w*)(?![a-z])",
)
_FAREWELL_COUNTER = _any(
    r"明天|晚安|下次|回头|待会|一会|等会|周末见|下周|改天|上课|上班|下班|开会|睡了|睡觉|吃饭|去忙|年|学期|假期|20\d\d|问题|提醒|考完|再聊|哈哈|生日",
    r"(?<![a-z])(?:tomorrow|later|see you|see ya|cya|good ?night|gn|next time|for now|shift|class|work|meeting|talk soon"
    r"|ttyl|brb|sleep|bed|dinner|lunch|today|year|summer|winter|semester|20\d\d|lol|lmao|haha\w*|rants?|birthday)(?![a-z])",
)

# --- a reason to live denied -----------------------------------------------------------------------
# living somewhere or some way is not living at all: "no reason to live in the city", "living paycheck to paycheck"
_PLACE_AFTER = r" (?:in|with|at|on|near|next|here|there|paycheck|off|out of|under|alone|abroad|like a)(?![a-z])"
_NO_REASON = _any(
    r"活(?:着|下去)[^,。]{0,6}?(?:没有?|毫无|没啥|没什么|有什么)(?:任何)?(?:意义|意思|盼头|希望|价值|用)"
    r"|(?:没有|找不到|没|不知道|看不到|想不出)(?:任何|一个|什么)?(?:活下去|活着|继续活|继续活下去)的?(?:理由|意义|动力|必要|勇气|盼头)"
    r"|活下去的(?:意义|理由|动力).{0,10}(?:找不到|没有|不知道|是什么|在哪)|为什么(?:还要|要|还得)(?:活着|活下去|继续活)"
    r"|结束这一切|不想(?:再)?存在了|不想再活|活够了",
    r"(?<![a-z])(?:(?:no|not any|not a|don'?t see (?:a|any)|dont see (?:a|any)|can'?t (?:see|find|think of) (?:a|any)|cant (?:see|find) (?:a|any)"
    r"|don'?t have (?:a|any)|lost (?:my|all|every)|out of|zero|any) (?:reasons?|point|purpose) (?:for me )?(?:to|for|in) (?:keep |keeping |go on |going on )?"
    r"(?:living|live|being alive|staying alive|stay alive|existing|exist|going on|wake up|waking up|(?<=keep )going)(?! to"
    + "|"
    + _PLACE_AFTER
    + r")"
    r"|nothing (?:left )?(?:to live for|worth living for)(?! (?:except|but|besides))|(?:tired|sick) of (?:existing|being alive|living|life)(?!"
    + _PLACE_AFTER
    + r")"
    r"|make (?:it|everything|the pain|this) (?:all )?stop (?:for good|forever|permanently)"
    r"|(?:only|one|last) way out(?: (?:i|that i) (?:can )?see| left| for me)? is (?:ending|to end|death|dying|to die|not being)"
    r"|end (?:it|this|everything) all|end my life|why (?:should |would |do )?i (?:should |would )?(?:keep |even )?(?:keep )?(?:going on )?(?:living|stay alive|exist)"
    r"|(?:don'?t|dont|do not) want to (?:exist|be alive|be here anymore)(?!" + _PLACE_AFTER + r"))",
)
_NO_REASON_COUNTER = _any(
    r"工作|关系|剧|游戏|电影|小说",
    r"(?<![a-z])(?:season|finale|episode|show|game|series|movie|film|with a bang|level|chat|group|job|shift|relationship"
    r"|subscriptions?|account|membership|contract|plan|streak|project|semester|class)(?![a-z])",
)

# --- last words: letters left to be found, an apology to one's family with no strength left ----------
_LETTERS = _any(
    r"写好了?.{0,4}给.{0,3}(?:爸|妈|家人|大家|所有人|每个人|父母).{0,4}(?:信|遗书|纸条)|(?:信|纸条)(?:都|已经)?写好了"
    r"|写(?:了|好了?)[^,。]{0,4}信给[^,。]{0,3}(?:爸|妈|家人|大家|所有人|每个人|父母|朋友)|给(?:家人|爸妈|父母|大家|所有人|每个人|朋友们?)的(?:信|遗书|纸条)",
    r"(?<![a-z])(?:wrote|written|writing|left) (?:a |the |my )?(?:letters?|notes?) (?:to|for) (?:everyone|my (?:family|parents|mom|mum|dad)"
    r"|mom|mum|dad|the people i love|all of you|each of my \w+|all my \w+|every(?: one|body) i \w+)"
    r"|(?:letters?|notes?) for my (?:family|parents|kids|friends|wife|husband|sister|brother)(?![a-z])",
)
_FOUND_LATER = _any(
    r"(?:明天|以后|醒来|回家|早上).{0,8}看到|会看到|会发现|我走了以后|我不在了|封好|封起来|都封|放在桌|放在抽屉|会明白|会理解",
    r"(?<![a-z])(?:they'?ll (?:find|read|see)|(?:find|read|see) (?:it|them) (?:tomorrow|when|after|in the morning)"
    r"|when i'?m gone|after i'?m gone|once i'?m gone|sealed|on (?:my|the) desk|they'?ll understand)(?![a-z])",
)
_LETTERS_COUNTER = _any(
    r"贺卡|生日|新年|节日|圣诞|情书|表白|毕业|纪念日|求职|简历|惊喜|笔友|寄|邮",
    r"(?<![a-z])(?:birthday|christmas|xmas|cards?|valentine\w*|anniversary|wedding|cover letters?|application|surprise|santa|thank[- ]you"
    r"|mail\w*|post\w*|stamps?|pen ?pals?|companies)(?![a-z])",
)
_APOLOGY_TO_FAMILY = _any(
    r"(?:对不起|抱歉).{0,4}(?:妈|爸|大家|你们|家人)|(?:妈妈|爸爸|妈|爸|大家|你们).{0,3}(?:对不起|抱歉)",
    r"(?<![a-z])(?:(?:i'?m |im )?sorry,? (?:mom|mum|dad|everyone|guys|all)|(?:mom|mum|dad|everyone),? (?:i'?m |im )?sorry)(?![a-z])",
)
# ... as the message's last words: a cause named after it (the piano lessons, 嗓子哑了) makes it everyday weariness
_NO_STRENGTH = _any(
    r"(?:撑不住|撑不下去|坚持不下去|熬不下去|活不下去)了?\W*$",
    r"(?<![a-z])(?:can'?t|cant|cannot) (?:do this|go on|hold on|take (?:it|this)|keep going)(?: any ?more| any longer)?\W*$",
)
_LAST_WORDS_COUNTER = _any(
    r"睡|困|作业|加班|考试|减肥|比赛|工作|学习|跑",
    r"(?<![a-z])(?:sleep\w*|tired|work|homework|diet|exams?|game|match|shift|class|meeting|run\w*)(?![a-z])",
)
# a message to pass on if one is not here tomorrow: "if im not here tomorrow, tell my sister i loved her"
_IF_GONE = _any(
    r"(?:如果|要是|万一|假如)(?:明天|以后|今晚过后)?我(?:明天|今晚|以后)?(?:不在了|不在|没了|走了|没上线|没回|没有回|醒不过来|出了什么事)",
    r"(?<![a-z])(?:if (?:i'?m|im|i am) (?:not|no longer) (?:here|around|alive)|if i (?:don'?t|dont|do not) make it|if (?:anything|something) happens to me"
    r"|if (?:i'?m|im) gone|if i die)(?![a-z])",
)
_PASS_ON = _any(
    r"(?:告诉|跟|对)[^,。]{0,6}(?:我爱|我很爱|我一直爱|说声?对不起|说一声对不起|说声?抱歉|爱(?:她|他|你们))",
    r"不是你的错|不怪你|别怪自己|不要自责|跟你没(?:有)?关系",
    r"(?<![a-z])(?:tell (?:\w+ ){0,3}(?:that )?(?:i (?:always |really )?(?:love|loved)|(?:i'?m |im )?sorry)|(?:it )?(?:wasn'?t|wasnt|isn'?t|isnt|is not|was not|'s not|s not) your fault|don'?t blame yourself)(?![a-z])",
)
_PASS_ON_COUNTER = _any(
    r"出差|考试|开会|旅游|打招呼|看病|医院|上课|老师|老板|请假|网|信号|没电",
    r"(?<![a-z])(?:said hi|say hi|exams?|trip|flight|work|sister'?s|party|dentist|doctor|appointment|boss|teacher|class|meeting|sick)(?![a-z])",
)
# a life insured, the person worth more gone: "at least id be worth something then"
_INSURED = _any(
    r"保险金|保险赔|保险的钱|赔的钱|理赔|人寿保险|寿险",
    r"(?<![a-z])(?:life insurance|insurance (?:money|payout|pays?))(?![a-z])",
)
_WORTH_GONE = _any(
    r"值点钱|值钱|我(?:死了|不在了)|要是我不在|如果我不在",
    r"(?<![a-z])(?:worth (?:something|more|anything)|(?:if|when|once) (?:i'?m|im) (?:gone|dead))(?![a-z])",
)
_INSURED_COUNTER = _any(
    r"买了|投保|业务员|保单|出国", r"(?<![a-z])(?:buy\w*|bought|adulting|agent|premium|quote|abroad)(?![a-z])"
)
_PAINLESS = _any(
    r"(?:不痛苦|无痛|不痛)(?:的|地)?(?:方法|方式|办法)?.{0,4}(?:离开|走掉|结束自己|去死)|再也不想看到明天|不想再有明天",
    r"(?<![a-z])painless (?:ways?|methods?|way out) (?:to )?(?:go|die|end (?:it|things|my life)|leave)(?![a-z])",
)

# --- self-harm as an ongoing act -------------------------------------------------------------------
_HARM_SELF = _any(
    r"伤害自己|伤害了自己|自残|自伤|(?:掐|咬|抓|撞|打|划|割|烫|扇|挠|锤|砸)(?:了|着)?(?:自己|手臂|手腕|胳膊|大腿|头)(?!一下)"
    r"|(?:拿|用)头撞|撞.{0,2}自己|用烟头|烟头烫|(?:手臂|手腕|胳膊|大腿|腿)上的(?:新)?伤口|新伤口"
    r"|在(?:自己的?)?(?:手臂|胳膊|手腕|大腿|腿|肚子|身上|皮肤)上(?:刻|划|割|烫)",
    r"(?<![a-z])(?:hit|hitting|bang|banged|banging|scratch|scratched|scratching|cut|cutting|burn|burned|burnt|burning|punch|punched"
    r"|punching|hurt|hurting|bite|biting|bit|carve|carved|carving|stab|stabbed|stabbing|slap|slapping|pinch|pinching)"
    r" (?:myself|my (?:arms?|wrists?|legs?|thighs?|head|skin|face|stomach|body|hands?|knuckles))(?![a-z])"
    r"|(?<![a-z])(?:punch\w*|hit\w*|bang\w*) (?:the )?walls?(?![a-z])"
    r"|(?<![a-z])(?:carv\w*|cut\w*|slic\w*|etch\w*|scratch\w*|burn\w*) (?:\w+ ){0,2}(?:into|in|on|onto) my (?:arms?|wrists?|legs?|thighs?|skin|stomach|body|hands?)(?![a-z])",
)
_ONGOING = _any(
    r"又|还是|忍不住|每次|每天|一直|血|止不住|才停|才舒服|才好受|青|紫|疤|难受",
    r"(?<![a-z])(?:again|until|till|til|bleeds?|bled|bleeding|every (?:day|night|time)|keep|kept|can'?t stop|cant stop"
    r"|scars?|to feel|lighter|cigarette|razor|blade|compass|when i'?m|whenever|helps?|won'?t stop|wont stop)(?![a-z])",
)
_HARM_COUNTER = _any(
    r"一下|做梦|不小心|蚊子|切菜|做饭|游戏|舌头|摔|磕|碰|手术",
    r"(?<![a-z])(?:mosquito|bites?|itch\w*|shav\w*|pan|oven|stove|cook\w*|baking|iron|accident\w*|accidentally|by mistake"
    r"|gym|workout|dinner|kitchen|onions?|door|corner|table|boxing|bags?|opening|cans?|paper|glass"
    r"|shelf|cabinet|cupboard|ceiling|doorframe|bunk|a little)(?![a-z])"
    r"|(?<![a-z])(?:cats?|kitty|kitten|dogs?|puppy|parrot|hamster|rabbit) (?:scratched|scratches|bit|bites|got)(?![a-z])",
)
_SH = re.compile(
    r"(?<![a-z])(?:sh'?d|sh-ed|sh-?ing|sh'ing|sh (?:again|urges?|scars?|relapse|free|clean)|(?:did|to|want to|wanna) sh(?![a-z'])"
    r"|self[- ]?harm\w*|relaps\w* .{0,30}clean|clean streak .{0,12}(?:ruined|gone|broken|over)|relaps\w*.{0,20}(?:cut|sh)(?![a-z]))"
)
_SH_COUNTER = re.compile(
    r"(?<![a-z])(?:sugar|diet|smok\w*|vap\w*|drink\w*|alcohol|porn|gaming|soda|coffee|caffeine|junk|nicotine|weed|sober|sobriety"
    r"|cig\w*|beer|wine|gambl\w*|betting|sweets|chocolate|candy|nails?|cigarettes?)(?![a-z])"
)

# --- online slang, read before normalising ---------------------------------------------------------
_SLANG = _any(
    r"紫砂(?![壶杯器陶泥锅茶煲罐盆])|自鲨|自鯊",
    r"(?<![a-z])(?:ctb|unaliv(?:e|ing|ed)(?! (?:me|you|him|her|them|us)(?![a-z]))|sewer ?slid(?:e|ing)|yeet(?:ing)? myself (?:off|into|in front))(?![a-z])"
    r"|(?<![a-z0-9.])(?<!\d )kms(?![a-z])",
)
_SLANG_COUNTER = re.compile(r"(?<![a-z])(?:mean|means|meaning|stands? for|what is|what's|whats|come to bed)(?![a-z])|=")

_SENTENCE = re.compile(r"[。!?;\n…]+|\.(?=\s|$)|\.{2,}")
_SHORT = 160


def signals_crisis(text: str) -> bool:
    """True when the text combines cue classes that state a crisis (see the module docstring)."""
    raw = unicodedata.normalize("NFKC", text).casefold()
    if any(not _SLANG_COUNTER.search(span) for span in _spans(raw) if _SLANG.search(span)):
        return True
    plain = safety.normalise(text).strip()
    return _farewell(plain) or any(_combined(span) for span in _spans(plain))


def crisis_seen(text: str) -> bool:
    """The combined check: the lexicon's `crisis_in` or this module's `signals_crisis`."""
    return safety.crisis_in(text) or signals_crisis(text)


def _spans(text: str) -> list[str]:
    """Each sentence, and the whole message when it is short: where two cues may meet."""
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    if len(sentences) > 1 and len(sentences) <= 3 and len(text) <= _SHORT:
        sentences.append(text)
    return sentences


def _combined(span: str) -> bool:
    return (
        _means_with_intent(span)
        or _settled(span)
        or _planned(span)
        or _no_reason(span)
        or _self_harm(span)
        or _last_words(span)
    )


def _means_with_intent(span: str) -> bool:
    intent = _INTENT_STRONG.search(span) or len(set(_INTENT_WEAK.findall(span))) > 1 or _METHOD_KNOWN.search(span)
    exhaust = _EXHAUST.search(span) and (_SHUT.search(span) or _METHOD_KNOWN.search(span))
    if not ((_MEANS.search(span) and intent) or exhaust):
        return False
    if _MEANS_COUNTER.search(span):
        return False
    return bool(_FIRST_PERSON.search(span)) or not _SOMEONE_ELSE.search(span)


def _settled(span: str) -> bool:
    if not _GIVEN.search(span) or _AWAY_COUNTER.search(span):
        return False
    # a pet or a thing handed on with thanks for the companion's time is a farewell, as an absence for good is
    if _PET_GIVEN.search(span) and _THANKS_OVER_TIME.search(span):
        return True
    if not _ABSENT.search(span):
        return False
    return bool(_FOR_GOOD.search(span)) or not _GIVEN_COUNTER.search(span)


def _planned(span: str) -> bool:
    plan = _PLANNED.search(span) and _TIME_ALONE.search(span) and not _PLANNED_COUNTER.search(span)
    crash = _CRASH_INTO.search(span) and _ENDING.search(span) and not _CRASH_COUNTER.search(span)
    at_peace = _NOT_LONG.search(span) and _AT_PEACE.search(span) and not _NOT_LONG_COUNTER.search(span)
    return bool(plan or crash or at_peace)


def _no_reason(span: str) -> bool:
    return bool(_NO_REASON.search(span)) and not _NO_REASON_COUNTER.search(span)


def _last_words(span: str) -> bool:
    if _PAINLESS.search(span):
        return True
    letters = bool(_LETTERS.search(span) and _FOUND_LATER.search(span)) and not _LETTERS_COUNTER.search(span)
    spent = bool(_APOLOGY_TO_FAMILY.search(span) and _NO_STRENGTH.search(span)) and not _LAST_WORDS_COUNTER.search(span)
    gone = bool(_IF_GONE.search(span) and _PASS_ON.search(span)) and not _PASS_ON_COUNTER.search(span)
    insured = bool(_INSURED.search(span) and _WORTH_GONE.search(span)) and not _INSURED_COUNTER.search(span)
    return letters or spent or gone or insured


def _self_harm(span: str) -> bool:
    if _SH.search(span) and not _SH_COUNTER.search(span):
        return True
    return bool(_HARM_SELF.search(span) and _ONGOING.search(span)) and not _HARM_COUNTER.search(span)


def _farewell(text: str) -> bool:
    """Goodbye at the start or the end of the message, thanks for the companion's time, no next time."""
    if not (_FAREWELL_START.search(text) or _FAREWELL_END.search(text)):
        return False
    if not (_THANKS_OVER_TIME.search(text) or _FAREWELL_FINAL.search(text)):
        return False
    return not _FAREWELL_COUNTER.search(text)
