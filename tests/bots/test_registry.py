import pytest

from app.bots.gin_rummy.basic import BasicGinBot
from app.bots.gin_rummy.strong import StrongGinBot
from app.bots.registry import UnknownBot, make_bot
from app.bots.rummikub.basic import BasicRummikubBot
from app.bots.rummikub.strong import SolverRummikubBot


@pytest.mark.parametrize(
    ("game", "level", "kind"),
    [
        ("gin_rummy", "easy", BasicGinBot),
        ("gin_rummy", "normal", StrongGinBot),
        ("gin_rummy", "hard", StrongGinBot),
        ("rummikub", "easy", BasicRummikubBot),
        ("rummikub", "normal", SolverRummikubBot),
        ("rummikub", "hard", SolverRummikubBot),
    ],
)
def test_each_difficulty_seats_its_own_bot(game: str, level: str, kind: type) -> None:
    bot = make_bot(game, level, seed=3)
    assert isinstance(bot, kind)
    assert getattr(bot, "level", level) == level


def test_an_unknown_level_or_game_is_refused() -> None:
    with pytest.raises(UnknownBot, match="bot level must be one of"):
        make_bot("gin_rummy", "grandmaster", seed=0)
    with pytest.raises(UnknownBot, match="no bots for game 'poker'"):
        make_bot("poker", "easy", seed=0)
