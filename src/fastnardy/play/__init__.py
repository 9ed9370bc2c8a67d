"""Playing games: the players (:mod:`fastnardy.play.players`, GNU Backgammon in
:mod:`fastnardy.play.gnubg`), seeded matches between them (:mod:`fastnardy.play.match`), their
errors on rolled-out benchmark sets of checker play (:mod:`fastnardy.play.benchmarks`), a
trainer's labels by a network or gnubg, on a cluster too (:mod:`fastnardy.play.labels`) and a
game at the terminal (:mod:`fastnardy.play.interactive`).

The terminal game's names (``greedy``, ``play_game`` …, :mod:`fastnardy.play.interactive`'s)
are read from here too."""

from .interactive import POLICIES as POLICIES
from .interactive import evaluate as evaluate
from .interactive import greedy as greedy
from .interactive import pips as pips
from .interactive import play_game as play_game
from .interactive import policy as policy
