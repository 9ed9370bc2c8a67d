"""Playing games: the one player protocol (:mod:`fastnardy.play.players`, GNU Backgammon in
:mod:`fastnardy.play.gnubg`), the one loop of games over rows
(:mod:`fastnardy.play.games`), seeded duels between players (:mod:`fastnardy.play.duel`), a
bot other programs play through GNU Backgammon's external-player socket
(:mod:`fastnardy.play.external`) and a game at the terminal
(:mod:`fastnardy.play.interactive`)."""

from .players import Player, player

__all__ = ["Player", "player"]
