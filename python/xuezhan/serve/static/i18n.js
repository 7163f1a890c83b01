// The room's words in Chinese (the default) and English (Settings → Language, remembered in the
// browser): XZ.t(key, params) for a phrase, XZ.tileName("5p") for a tile, XZ.points(n) for a
// count of points; XZ.i18n.apply(root) fills the elements marked data-i18n (their text),
// data-i18n-title and data-i18n-placeholder. Rule and fan names come from the server (the
// engine's registry and the core's fan labels), never from here.
"use strict";
window.XZ = window.XZ || {};
(function (XZ) {
  const KEY = "xuezhan.settings";
  const NUM = "一二三四五六七八九";
  const SUIT = { m: "万", p: "筒", s: "条" };
  const WORDS = {
    zh: {
      lang_name: "中文",
      lobby: "← 大厅", settings: "设置", close: "关闭", events: "记录", table: "牌桌", spectator: "旁观",
      room_title: "血战到底 · 游戏大厅", replay_link: "牌局回放", standings_link: "积分榜",
      tables: "牌桌", open_table: "开桌", t_name: "桌名", t_rules: "规则", t_hand: "局数", t_seats: "座位",
      t_watching: "旁观", t_open: "进入", no_tables: "还没有牌桌：在下面开一桌。", name_ph: "桌名",
      hands: "局数", seat_n: "{n} 号位", a_person: "玩家", lobby_hint: "选择谁坐哪里：玩家在牌桌页面入座；机器人可以在这里或牌桌上安排。任何人都可以进入进行中的牌桌，点击玩家头像从其座位旁观。",
      preset_leshan: "乐山 (leshan)", preset_chengdu: "成都：换三张、定缺 (chengdu)", preset_xueliu: "血流成河：胡牌后继续 (xueliu)",
      hand_of: "第 {n}/{of} 局", watching_n: "{n} 人旁观", you_are: "你：{name}", watching_who: "旁观 {name}",
      waiting_players: "等待玩家", match_over: "本场结束", hand_over: "本局结束",
      your_name: "你的名字", sit_here: "坐这里", empty: "空位", seat_bot: "安排机器人", remove: "移除",
      bot: "机器人", started: "✓ 已准备", not_started: "· 未准备", gone: "离开", leave_seat: "离座",
      start: "开始", seats_h: "座位", seats_hint: "四个座位坐满且每位玩家按下“开始”后开局。",
      sat: "你坐在 {n} 号位：牌桌下方的座位。",
      in_wall: "牌墙", last_tiles: "最后几张", wall_title: "牌墙剩余张数",
      k_turn: "出牌", k_claim: "碰杠胡", k_exchange: "换三张", k_void: "定缺",
      discard: "打出", hu: "胡", zimo: "自摸", gang: "杠", peng: "碰", pass: "过",
      kong_n: "杠 {tile}", exchange_btn: "换这三张", void_btn: "缺{suit}",
      discard_drawn: "打出摸到的牌", discards_it: "{name} 打出",
      may_not_discard: "现在不能打 {tile}", void_first: "（先打缺门的牌，R11.2）",
      locked_note: "锁牌：已胡 {n} 次，能胡就胡，其余摸到的牌打出。",
      locked_soon: "马上替你打出 {tile}。",
      hidden_note: "{name} 未允许旁观看牌",
      no_table: "服务器上没有这张牌桌（空闲的牌桌会关闭）：请到大厅开一桌。", no_table_short: "没有这张牌桌",
      reconnecting: "连接断开，正在重连…",
      wind: "东南西北", wind_title: "{w}风位", dealer: "庄", dealer_title: "庄家", void_title: "缺门",
      locked_tag: "锁", locked_title: "已胡并继续：锁牌，除非能胡，摸什么打什么（R14.2）",
      won_fan: "胡 {fan}番", escaped: "逃跑", watch_who: "旁观 {name}",
      r_won: "胡牌", r_ready: "听牌", r_not_ready: "未听牌", r_pig: "花猪", r_escaped: "逃跑", r_playing: "未完",
      r_ready_waits: "听牌 {waits}", r_value: "{n}番",
      // the event log
      e_start: "开局，{dealer} 坐庄", e_draw: "{seat} 摸牌", e_draw_t: "{seat} 摸到 {tile}", e_repl: "（杠后补牌）",
      e_discard: "{seat} 打出 {tile}", e_timeout: "（超时）", e_locked: "（锁牌，自动打出）",
      e_peng: "{seat} 碰 {from} 的 {tile}", e_gang: "{seat} 杠 {from} 的 {tile}", e_jiagang: "{seat} 加杠 {tile}",
      e_angang: "{seat} 暗杠 {tile}", e_win: "{seat} 胡 {tile}", e_win_self: "，自摸", e_win_from: "，{from} 点炮",
      e_win_rob: "，抢 {from} 的杠", e_fan: "：{fan}番",
      e_pay: "{from} 付给 {to} {amount}（{rule}）", e_penalty: "{from} 被罚 {amount}（{rule}）",
      e_claim: "{seat}：{what}", e_exchange: "{seat} 换三张 {tiles}", e_three: "三张牌", e_exchanged: "换牌：{dir}",
      dir_left: "顺时针", dir_right: "逆时针", dir_across: "对家",
      e_received: "{seat} 收到 {tiles}", e_voids: "定缺：{list}", e_pig: "{seat} 花猪", e_ready: "{seat} 听牌，{value}番",
      e_escape: "{seat} 逃跑", e_last: "最后 {n} 张", e_end: "本局结束：{reason}",
      end_wall: "牌墙摸完", end_three_won: "三家已胡", end_escape: "有人逃跑",
      // the end of the hand
      settle_title: "第 {n} 局结算", g_player: "玩家", g_hu: "胡牌", g_fans: "番型", g_fan: "番数",
      g_hu_pts: "胡分", g_kong: "杠分", g_check: "查叫/花猪/退税", g_escape: "逃跑", g_total: "合计",
      g_payments: "每一笔付分", g_pays: "{from} → {to}", g_penalty: "{from} 被罚",
      pinghu: "平胡", how_self: "自摸", how_discard: "点炮", how_rob: "抢杠",
      how_from: "{from} 点炮", how_rob_from: "抢 {from} 的杠",
      scores: "总分", replay_hand: "回放本局（四家明牌）", next_hand: "开始下一局", new_match: "开始新一场",
      waiting_others: "等待其他玩家开始…", hide: "收起", show: "展开结算",
      // aids
      aid_waits: "听：", aid_left: "剩{n}", aid_if: "打 {tile} 听：", aid_suggest: "建议：", aid_suggest_ex: "建议换 {tiles}",
      aid_suggest_void: "建议缺{suit}",
      // settings
      s_title: "设置", s_lang: "语言 Language", s_sound: "音效", s_anim: "动画", s_music: "音乐", s_bg: "背景",
      s_tiles: "牌面", s_tiles_cn: "中文牌面（五筒）", s_tiles_label: "标签（5p）", s_show: "允许旁观看牌",
      s_aids: "辅助", s_aid_waits: "听牌提示（剩几张）", s_aid_voids: "标出缺门的牌并放在最后",
      s_aid_suggest: "换三张和定缺建议", s_aid_float: "付分时显示 +N/−N",
      bg_felt: "绿色台呢", bg_blue: "蓝色", bg_wood: "木纹", bg_dark: "深色",
      // the standings and replay pages
      st_title: "积分榜", st_player: "玩家", st_points: "积分", st_hands: "局数", st_none: "还没有玩家：入座打一局。",
      st_more: "更多", st_when: "时间", st_table: "牌桌", st_seat: "座位", st_what: "内容", st_total: "{points}，共 {hands}",
      st_hand: "一局", st_escape: "逃跑罚分（R8）", st_reset: "清零", st_replay: "回放",
      rp_title: "牌局回放", rp_pick: "— 本服务器的牌局 —", rp_file: "或选择文件", rp_first: "« 开头", rp_last: "最后 »",
      rp_settle: "结算", rp_wall: "牌墙：{n}", rp_review: "复盘", rp_review_go: "复盘这个座位", seat_word: "{n} 号位",
      fair_deal: "牌局承诺", fair_seed: "种子", fair_commitment: "承诺", fair_matches: "✓ 相符：发牌在开局前已定",
      fair_differs: "✗ 与承诺不符", fair_check: "自行核对：printf 'xuezhan-deal:{seed}' | sha256sum",
      fair_title: "发牌承诺（本局种子的 SHA-256，开局前已定）：{c}",
    },
    en: {
      lang_name: "English",
      lobby: "← Lobby", settings: "Settings", close: "Close", events: "Events", table: "Table", spectator: "Spectator",
      room_title: "血战到底 · xuezhan game room", replay_link: "Replay a hand", standings_link: "Standings",
      tables: "Tables", open_table: "Open a table", t_name: "Table", t_rules: "Rules", t_hand: "Hand", t_seats: "Seats",
      t_watching: "Watching", t_open: "Open", no_tables: "No tables yet: open one below.", name_ph: "Table name",
      hands: "Hands", seat_n: "Seat {n}", a_person: "a person", lobby_hint: "Choose who sits: people take a seat on the table page; bots can be seated here or there. Anyone can open a running table and click a player to watch from that seat.",
      preset_leshan: "leshan (乐山)", preset_chengdu: "chengdu (成都: 换三张, 定缺)", preset_xueliu: "xueliu (血流成河: winners stay)",
      hand_of: "hand {n}/{of}", watching_n: "{n} watching", you_are: "You: {name}", watching_who: "Watching {name}",
      waiting_players: "Waiting for players", match_over: "The match is over", hand_over: "The hand is over",
      your_name: "your name", sit_here: "Sit here", empty: "empty", seat_bot: "Seat bot", remove: "Remove",
      bot: "bot", started: "✓ started", not_started: "· not started", gone: "gone", leave_seat: "Leave seat",
      start: "Start", seats_h: "Seats", seats_hint: "The hand starts when four are seated and every player pressed Start.",
      sat: "You sit in seat {n}: the seat at the bottom of the table.",
      in_wall: "in the wall", last_tiles: "last tiles", wall_title: "tiles left in the wall",
      k_turn: "turn", k_claim: "claim", k_exchange: "exchange", k_void: "void",
      discard: "Discard", hu: "Hu 和", zimo: "Zimo 自摸", gang: "Kong 杠", peng: "Peng 碰", pass: "Pass 过",
      kong_n: "Kong {tile}", exchange_btn: "Exchange these 3 (换三张)", void_btn: "Void 缺{suit}",
      discard_drawn: "Discard drawn tile", discards_it: "{name} discards",
      may_not_discard: "You may not discard {tile} now", void_first: " (void suit first, R11.2)",
      locked_note: "Locked 锁: won {n}×; you win on a tile that completes it, any other tile you draw is discarded.",
      locked_soon: "{tile} goes in a moment.",
      hidden_note: "{name} keeps its tiles private",
      no_table: "No such table on this server (it may have closed: idle tables expire): open one in the lobby.", no_table_short: "No such table",
      reconnecting: "Connection lost; reconnecting…",
      wind: "ESWN", wind_title: "{w} (seat wind)", dealer: "庄", dealer_title: "dealer", void_title: "void suit",
      locked_tag: "锁 locked", locked_title: "won and stays in: its hand is locked, it discards what it draws unless it wins (R14.2)",
      won_fan: "和 {fan} fan", escaped: "escaped", watch_who: "Watch {name}",
      r_won: "won", r_ready: "ready", r_not_ready: "not ready", r_pig: "pig 花猪", r_escaped: "escaped", r_playing: "playing",
      r_ready_waits: "ready on {waits}", r_value: "{n} fan",
      e_start: "Hand starts; {dealer} deals", e_draw: "{seat} draws", e_draw_t: "{seat} draws {tile}", e_repl: " (kong replacement)",
      e_discard: "{seat} discards {tile}", e_timeout: " (timeout)", e_locked: " (locked hand, played for it)",
      e_peng: "{seat} pungs {tile} from {from}", e_gang: "{seat} kongs {tile} from {from}", e_jiagang: "{seat} adds {tile} to its pung (kong)",
      e_angang: "{seat}: concealed kong {tile}", e_win: "{seat} wins on {tile}", e_win_self: " by self-draw 自摸", e_win_from: " from {from}",
      e_win_rob: " robbing {from}'s kong", e_fan: ": {fan} fan",
      e_pay: "{from} pays {to} {amount} ({rule})", e_penalty: "{from} pays the penalty {amount} ({rule})",
      e_claim: "{seat}: {what}", e_exchange: "{seat} exchanges {tiles}", e_three: "three tiles", e_exchanged: "the tiles pass {dir}",
      dir_left: "clockwise", dir_right: "counter-clockwise", dir_across: "across",
      e_received: "{seat} receives {tiles}", e_voids: "voids: {list}", e_pig: "{seat} is a pig 花猪", e_ready: "{seat} is ready 听牌, worth {value}",
      e_escape: "{seat} escapes", e_last: "last tiles: {n} left", e_end: "the hand is over: {reason}",
      end_wall: "the wall is empty", end_three_won: "three players have won", end_escape: "a player escaped",
      settle_title: "Hand {n} is over", g_player: "Player", g_hu: "Win", g_fans: "Fan items", g_fan: "Fan",
      g_hu_pts: "Win pts", g_kong: "Kong pts", g_check: "Check/pig/refund", g_escape: "Escape", g_total: "Total",
      g_payments: "Every payment", g_pays: "{from} → {to}", g_penalty: "{from}: penalty",
      pinghu: "plain win 平胡", how_self: "self-draw", how_discard: "on a discard", how_rob: "robbing a kong",
      how_from: "from {from}", how_rob_from: "robbing {from}'s kong",
      scores: "Scores", replay_hand: "Replay this hand, all four hands open", next_hand: "Start next hand", new_match: "Start a new match",
      waiting_others: "Waiting for the other players to start…", hide: "Hide", show: "Show the summary",
      aid_waits: "Waits: ", aid_left: "{n} left", aid_if: "discard {tile}, wait on: ", aid_suggest: "Suggested: ", aid_suggest_ex: "suggested: exchange {tiles}",
      aid_suggest_void: "suggested: void {suit}",
      s_title: "Settings", s_lang: "Language 语言", s_sound: "Sound effects", s_anim: "Animation", s_music: "Music", s_bg: "Background",
      s_tiles: "Tiles", s_tiles_cn: "Chinese characters (五筒)", s_tiles_label: "Labels (5p)", s_show: "Let spectators see my tiles (允许旁观看牌)",
      s_aids: "Aids", s_aid_waits: "Waits when ready (how many are left)", s_aid_voids: "Mark void-suit tiles and sort them last",
      s_aid_suggest: "Exchange and void suggestions", s_aid_float: "Show +N/−N at each payment",
      bg_felt: "Green felt", bg_blue: "Blue", bg_wood: "Wood", bg_dark: "Dark",
      st_title: "Standings", st_player: "Player", st_points: "Points", st_hands: "Hands", st_none: "No players yet: sit at a table and play a hand.",
      st_more: "More", st_when: "When", st_table: "Table", st_seat: "Seat", st_what: "What", st_total: "{points} over {hands}",
      st_hand: "hand", st_escape: "escape penalty (逃跑, R8)", st_reset: "reset (清零)", st_replay: "Replay",
      rp_title: "Replay", rp_pick: "— a log of this server —", rp_file: "or a file", rp_first: "« First", rp_last: "Last »",
      rp_settle: "Settlement", rp_wall: "Wall: {n}", rp_review: "Review", rp_review_go: "Review seat", seat_word: "seat {n}",
      fair_deal: "deal", fair_seed: "seed", fair_commitment: "commitment", fair_matches: "✓ matches: the deal was fixed before play",
      fair_differs: "✗ DIFFERS from the commitment", fair_check: "check: printf 'xuezhan-deal:{seed}' | sha256sum",
      fair_title: "Deal commitment (SHA-256 of the hand's seed, fixed before play): {c}",
    },
  };

  // The language: the one kept in the settings (Chinese unless the player chose English).
  function lang() {
    if (XZ.settings) return XZ.settings.get().lang === "en" ? "en" : "zh";
    try {
      return (JSON.parse(localStorage.getItem(KEY) || "{}").lang === "en") ? "en" : "zh";
    } catch (e) {
      return "zh";
    }
  }

  function t(key, params) {
    const table = WORDS[lang()];
    let s = key in table ? table[key] : WORDS.en[key] !== undefined ? WORDS.en[key] : key;
    if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
    return s;
  }

  // "五筒" in Chinese, "5p" in English.
  function tileName(tile) {
    if (!tile) return "";
    return lang() === "zh" ? NUM[+tile[0] - 1] + SUIT[tile[1]] : tile;
  }

  // A number of points: "3分" / "1 point" / "3 points".
  function points(n) {
    if (lang() === "zh") return `${n}分`;
    return `${n} point${Math.abs(n) === 1 ? "" : "s"}`;
  }

  // A count of hands: "8局" / "1 hand" / "8 hands".
  function handsText(n) {
    if (lang() === "zh") return `${n}局`;
    return `${n} hand${n === 1 ? "" : "s"}`;
  }

  // A rule's or fan item's name from the server: {zh, en} in the page's language.
  function name(obj) {
    return obj ? (lang() === "zh" ? obj.zh : obj.en) : "";
  }

  // The hand a table is at, the same on every page: "3/8" while hand 3 is played (or, between
  // hands, the next one), "8/8" once the match is over.
  function handNo(table) {
    const n = table.status === "over" ? table.hand_no : table.hand_no + 1;
    return Math.max(1, Math.min(n, table.hands));
  }

  function apply(root) {
    const r = root || document;
    for (const el of r.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of r.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
    for (const el of r.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
    document.documentElement.lang = lang() === "zh" ? "zh-CN" : "en";
  }

  XZ.t = t;
  XZ.tileName = tileName;
  XZ.points = points;
  XZ.i18n = { lang, t, apply, points, handsText, name, handNo, WORDS };
})(window.XZ);
