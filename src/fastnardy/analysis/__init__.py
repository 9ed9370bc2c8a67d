"""Analysis as GNU Backgammon's users read it: hints, evaluations, the cube, rollouts of a
decision, analysed games and their HTML page.

Its modules: :mod:`~fastnardy.analysis.evaluation` (hint, eval, the cube decision),
:mod:`~fastnardy.analysis.review` (luck, analysed games), :mod:`~fastnardy.analysis.rollouts`
(rollouts with variance reduction), :mod:`~fastnardy.analysis.benchmarks` (rolled-out sets
of checker play, a player's error on them) and :mod:`~fastnardy.analysis.page` (the HTML
page).
What they value positions with is the search's: the evaluation setting
(:class:`fastnardy.search.Setting`, or its text), the cube context and its model
(:mod:`fastnardy.search.cubeful`), match equity tables (:mod:`fastnardy.search.met`) and the
five outputs (:class:`fastnardy.search.network.Probabilities`), whose names are read from
here too."""

from ..search.cubeful import (BEAROFF_EFFICIENCY, CONTACT_EFFICIENCY, Cube, cube_action,
                              cube_equities, CubeDecision, cubeful, efficiencies, efficiency,
                              leaves, model_met, mwc_scale, OWNERS, RACE_EFFICIENCY,
                              shipped_met)
from ..search.met import MatchEquityTable, read_met
from ..search.network import flip, Probabilities
from .evaluation import (Candidate, cube_decision, evaluate, Evaluation, Hint, hint,
                         probabilities)
from .review import (analyse, analyse_game, AnalysedTurn, Analysis, CANDIDATES, CLOSE_CUBE,
                     CUBE_ERRORS, CUBE_PLAYS, CubeReview, luck, luck_mark, LUCK_MARKS,
                     luck_rating, LUCK_RATINGS, mark, MARKS, rating, RATINGS)
from .rollouts import (cube_rollout, CubeRollout, dice_stream, RolledCandidate, rollout)

__all__ = ["analyse", "analyse_game", "AnalysedTurn", "Analysis", "BEAROFF_EFFICIENCY",
           "Candidate", "CANDIDATES", "CLOSE_CUBE", "CONTACT_EFFICIENCY", "Cube",
           "cube_action", "cube_decision", "cube_equities", "CUBE_ERRORS", "CUBE_PLAYS",
           "cube_rollout", "CubeDecision", "cubeful", "CubeReview", "CubeRollout",
           "dice_stream", "efficiencies", "efficiency", "evaluate", "Evaluation", "flip",
           "Hint", "hint", "leaves", "luck", "luck_mark", "LUCK_MARKS", "luck_rating",
           "LUCK_RATINGS", "mark", "MARKS", "MatchEquityTable", "model_met", "mwc_scale",
           "OWNERS", "Probabilities", "probabilities", "RACE_EFFICIENCY", "rating", "RATINGS",
           "read_met", "RolledCandidate", "rollout", "shipped_met"]
