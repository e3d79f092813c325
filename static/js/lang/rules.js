// The rules of both games as meldhall plays them, in each language. Each section is a title and
// a list of paragraphs; a paragraph starting with "- " is a list item; {cards:H8 S8} and
// {tiles:R7 J} are drawn as pictures of those cards and tiles.

const en = {
  gin_rummy: [
    ["Gin Rummy in brief", [
      "Two players, a 52-card deck without jokers. Ace is low (1 point), J, Q and K are worth 10, other cards their number.",
      "Each player gets 10 cards. The rest is the stock, face down; one card is turned up to start the discard pile.",
      "The aim: arrange your hand into melds and keep the points of the cards left over (your deadwood) low.",
    ]],
    ["Melds", [
      "- A set: 3 or 4 cards of the same rank, e.g. {cards:H8 S8 D8}.",
      "- A run: 3 or more cards of one suit in sequence, e.g. {cards:H1 H2 H3} or {cards:C6 C7 C8 C9}. The ace is low only: {cards:S12 S13 S1} is not a run.",
      "- Each card belongs to at most one meld. Cards in no meld are deadwood.",
      "meldhall sorts your hand into the melds that leave the least deadwood and shows the deadwood as you play.",
    ]],
    ["A turn", [
      "First turn: the player who does not deal may take the upcard or pass; if they pass, the dealer may take it; if both pass, the first player draws from the stock.",
      "Every turn: draw one card, from the stock or the top of the discard pile, then discard one card face up. You may not discard the card you just took from the discard pile.",
      "Cards your opponent took from the discard pile are shown to you: they are public.",
      "If only two stock cards are left after a discard and nobody has knocked, the hand is a draw: nobody scores.",
    ]],
    ["Ending a hand: knock, gin, big gin", [
      "- Knock: when your deadwood after discarding is 10 or less (the room's knock limit), discard face down and lay out your hand. meldhall offers the knock only when it is legal and shows the deadwood you would knock at.",
      "- Gin: all 10 cards in melds, no deadwood.",
      "- Big gin: all 11 cards (after drawing) in melds; you lay them all down without discarding.",
      "After a knock the opponent lays out their hand and may lay off deadwood onto the knocker's melds (not after gin or big gin): they choose which cards, with the best lay-offs already picked (in rooms with automatic lay-offs the best are laid off for them). The knocker never lays off.",
    ]],
    ["Scoring", [
      "- Knock: the knocker scores the difference between the two deadwood counts.",
      "- Undercut: if the opponent's deadwood is equal to or lower than the knocker's, the opponent scores the difference plus 25. Gin is never undercut.",
      "- Gin: the opponent's deadwood plus 25. Big gin: the opponent's deadwood plus 31.",
      "- The match ends when a player reaches 100. The game bonus is 100, and each player gets a line bonus of 25 per hand won.",
      "- Shutout: if the winner won every hand (and none was a draw), every hand's points are doubled before the line bonus.",
      "The room's creator may change these numbers; the lobby shows each option with its default.",
    ]],
    ["Three or four players", [
      "With three players the dealer sits out each hand, in turn. With four, two partnerships play two tables at once and add the partners' scores.",
    ]],
  ],
  rummikub: [
    ["Rummikub in brief", [
      "106 tiles: numbers 1 to 13 in four colours (red, blue, black, yellow), two of each, plus 2 jokers. 2 to 4 players, 14 tiles each on their rack; the rest is the pool.",
      "The aim: be the first to empty your rack.",
    ]],
    ["Melds", [
      "- A group: 3 or 4 tiles of the same number in different colours, e.g. {tiles:R7 B7 K7}.",
      "- A run: 3 or more tiles of one colour in sequence, e.g. {tiles:Y3 Y4 Y5 Y6}. 1 is low only: 13 does not wrap to 1.",
      "- A joker {tiles:J} stands for any tile a meld needs, e.g. {tiles:B9 J B11}. meldhall shows what each joker stands for.",
    ]],
    ["Your turn", [
      "Lay tiles from your rack onto the table as new melds or onto existing melds, and rearrange the table as you like. When you end your turn every meld on the table must be valid, and you must have laid at least one tile from your rack.",
      "If you cannot or do not want to play, draw one tile from the pool; your turn ends (anything you moved this turn is taken back).",
      "When the pool is empty you pass instead of drawing.",
    ]],
    ["Initial meld", [
      "Your first play must be worth at least 30 points, all from your own rack (a joker counts as the number it stands for). Until you have made it you may not use or rearrange the tiles already on the table.",
    ]],
    ["Rearranging the table", [
      "After your initial meld you may split runs, take a tile from a group of four, join melds, move tiles between melds and replace a joker with the tile it stands for; a joker taken from the table must be played again in the same turn.",
      "In meldhall drag a tile onto a meld (or tap the tile, then the meld), drag it to “New meld” to start one, drag ⠿ to join two melds, and tap the | between tiles to split. Each meld is marked ✓ valid or ✗ invalid as you go. “Reset turn” puts everything back.",
    ]],
    ["End of a round and scoring", [
      "The round ends when a player empties their rack, or when the pool is empty and nobody can play.",
      "Each loser scores minus the value of the tiles left on their rack (a joker counts 30); the winner scores the sum of what the others lose. If the pool ran out, the player with the lowest rack wins the round.",
      "The room may set a turn timer; a player whose time runs out has their turn taken back and draws penalty tiles.",
    ]],
  ],
};

const zh = {
  gin_rummy: [
    ["金拉米简介", [
      "两人对战，使用 52 张牌，不用大小王。A 最小（1 点），J、Q、K 各 10 点，其他牌按面值计算。",
      "每人发 10 张牌。其余的牌面朝下作为牌库，翻开一张牌作为弃牌堆的起始牌。",
      "目标：把手牌组成组合，并尽量减少不属于任何组合的牌（散牌）的点数。",
    ]],
    ["组合", [
      "- 同点组合：三张或四张点数相同的牌，例如 {cards:H8 S8 D8}。",
      "- 顺子：同一花色的连续三张或更多牌，例如 {cards:H1 H2 H3} 或 {cards:C6 C7 C8 C9}。A 始终为最小，{cards:S12 S13 S1} 不是顺子。",
      "- 每张牌只能属于一个组合。不属于任何组合的牌就是散牌。",
      "meldhall 会把你的手牌自动排成散牌最少的组合，并随时显示散牌点数。",
    ]],
    ["回合", [
      "第一回合：非发牌玩家可以拿起明牌或跳过；如果跳过，发牌人可以做同样选择；如果双方都跳过，先手玩家从牌库抽牌。",
      "每回合：先抽一张牌（从牌库或弃牌堆顶），再弃一张牌到弃牌堆。本回合从弃牌堆拿的牌不能马上弃回。",
      "对手从弃牌堆拿走的牌会显示给你：这些牌是公开的。",
      "如果弃牌后牌库只剩两张牌且没有人敲牌，本局为平局，双方都不得分。",
    ]],
    ["结束一局：敲牌、清牌、大清牌", [
      "- 敲牌：弃牌后散牌点数不超过 10 点（房间的敲牌上限）时，把一张牌面朝下弃出，并摊开手牌。只有合法时 meldhall 才会提供敲牌按钮，并显示敲牌时的散牌点数。",
      "- 清牌（Gin）：10 张牌全部组成组合，没有散牌。",
      "- 大清牌（Big Gin）：抽牌后 11 张牌全部组成组合，直接摊牌，不用弃牌。",
      "敲牌后，对手摊开手牌，并可以把散牌搭接到敲牌者的组合上（清牌或大清牌时不能搭接）：由对手选择搭接哪些牌，最优的搭接已预先选好（在自动搭接的房间里，系统直接替对手搭接最优的牌）。敲牌者永远不能搭接。",
    ]],
    ["计分", [
      "- 敲牌分：敲牌者得到双方散牌点数的差值。",
      "- 反扣：如果对手的散牌点数小于或等于敲牌者，对手得到差值再加 25 分。清牌永远不会被反扣。",
      "- 清牌：对手的散牌点数加 25 分。大清牌：对手的散牌点数加 31 分。",
      "- 某位玩家达到 100 分时比赛结束。比赛奖励 100 分；每赢一局获得 25 分局胜奖励。",
      "- 全胜奖励：如果获胜者赢下了每一局（且没有平局），在加局胜奖励之前，每局的分数先翻倍。",
      "房主可以修改这些数字；大厅会显示每个选项及其默认值。",
    ]],
    ["三人或四人", [
      "三人时，发牌人轮流坐在一旁，不参加这一局。四人时分成两组，两桌同时进行，把队友的分数相加。",
    ]],
  ],
  rummikub: [
    ["拉密简介", [
      "共 106 枚数字牌：1 到 13，红、蓝、黑、黄四种颜色，每种两套，另加 2 枚百搭牌。2 到 4 人，每人 14 枚放在自己的牌架上；其余的是公共牌池。",
      "目标：最先打光自己牌架上的数字牌。",
    ]],
    ["组合", [
      "- 组：3 或 4 枚数字相同、颜色不同的数字牌，例如 {tiles:R7 B7 K7}。",
      "- 顺：同一种颜色、3 枚或更多连续数字的数字牌，例如 {tiles:Y3 Y4 Y5 Y6}。1 只能在最小端，13 之后不能接 1。",
      "- 百搭牌 {tiles:J} 可以代替组合需要的任意数字牌，例如 {tiles:B9 J B11}。meldhall 会显示每枚百搭牌代表的牌。",
    ]],
    ["你的回合", [
      "把牌架上的数字牌放到桌面上组成新组合，或加入已有组合，也可以重新排列桌面。结束回合时，桌面上的每个组合都必须合法，并且你至少打出了一枚自己牌架上的数字牌。",
      "如果无法或不想出牌，就从公共牌池抽取 1 枚数字牌，回合立即结束（本回合移动过的牌会全部复原）。",
      "公共牌池已空时，改为跳过。",
    ]],
    ["首次出牌（破冰）", [
      "第一次出牌（俗称“破冰”）的组合总价值必须达到 30 分，且全部来自自己的牌架（百搭牌按其代表的数字计算）。完成首次出牌前，不能使用或重新排列桌面上已有的数字牌。",
    ]],
    ["重新排列桌面", [
      "完成首次出牌后，你可以拆分顺、从四张的组中取出一枚、连接组合、在组合之间移动数字牌，也可以用实际的数字牌替换桌面上的百搭牌；换下的百搭牌必须在同一回合再次打出。",
      "在 meldhall 中：把数字牌拖到某个组合上（或先点牌再点组合），拖到“新组合”开始一个新组合，拖动 ⠿ 连接两个组合，点数字牌之间的 | 进行拆分。每个组合会随时标记 ✓ 合法或 ✗ 不合法。“重置本回合”会把一切复原。",
    ]],
    ["一局结束与计分", [
      "当有玩家打光牌架，或公共牌池已空且无人能出牌时，本局结束。",
      "每位输家扣除自己牌架上剩余数字牌的点数（百搭牌算 30 分）；赢家得到其他人扣分的总和。如果公共牌池用完，牌架点数最低的玩家赢得本局。",
      "房间可以设置回合计时；超时的玩家本回合的操作会被收回，并从公共牌池罚抽数字牌。",
    ]],
  ],
};

export default { en, "zh-CN": zh };
