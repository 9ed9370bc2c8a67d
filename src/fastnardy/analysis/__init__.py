"""Analysis as GNU Backgammon's users read it: hints, evaluations, the cube, rollouts of a
decision, analysed games and their HTML page.

Its modules: :mod:`~fastnardy.analysis.evaluation` (hint, eval, the cube decision),
:mod:`~fastnardy.analysis.review` (luck, analysed games), :mod:`~fastnardy.analysis.rollouts`
(rollouts with variance reduction) and :mod:`~fastnardy.analysis.page` (the HTML page).
What they value positions with is the search's: the evaluation setting
(:mod:`fastnardy.search.setting`), the cube context and its model
(:mod:`fastnardy.search.cubeful`), match equity tables (:mod:`fastnardy.search.met`) and the
five outputs (:class:`fastnardy.search.network.Probabilities`), whose names are read from
here too."""

from ..search.cubeful import BEAROFF_EFFICIENCY as BEAROFF_EFFICIENCY
from ..search.cubeful import CONTACT_EFFICIENCY as CONTACT_EFFICIENCY
from ..search.cubeful import Cube as Cube
from ..search.cubeful import cube_action as cube_action
from ..search.cubeful import cube_equities as cube_equities
from ..search.cubeful import CubeDecision as CubeDecision
from ..search.cubeful import cubeful as cubeful
from ..search.cubeful import efficiencies as efficiencies
from ..search.cubeful import efficiency as efficiency
from ..search.cubeful import leaves as leaves
from ..search.cubeful import model_met as model_met
from ..search.cubeful import mwc_scale as mwc_scale
from ..search.cubeful import OWNERS as OWNERS
from ..search.cubeful import RACE_EFFICIENCY as RACE_EFFICIENCY
from ..search.cubeful import shipped_met as shipped_met
from ..search.met import MatchEquityTable as MatchEquityTable
from ..search.met import read_met as read_met
from ..search.network import flip as flip
from ..search.network import Probabilities as Probabilities
from ..search.setting import Setting as Setting
from .evaluation import Candidate as Candidate
from .evaluation import cube_decision as cube_decision
from .evaluation import evaluate as evaluate
from .evaluation import Evaluation as Evaluation
from .evaluation import Hint as Hint
from .evaluation import hint as hint
from .evaluation import probabilities as probabilities
from .review import analyse as analyse
from .review import analyse_game as analyse_game
from .review import AnalysedTurn as AnalysedTurn
from .review import CANDIDATES as CANDIDATES
from .review import CLOSE_CUBE as CLOSE_CUBE
from .review import CUBE_ERRORS as CUBE_ERRORS
from .review import CUBE_PLAYS as CUBE_PLAYS
from .review import CubeReview as CubeReview
from .review import Analysis as Analysis
from .review import luck as luck
from .review import luck_mark as luck_mark
from .review import luck_rating as luck_rating
from .review import LUCK_RATINGS as LUCK_RATINGS
from .review import LUCK_MARKS as LUCK_MARKS
from .review import mark as mark
from .review import MARKS as MARKS
from .review import rating as rating
from .review import RATINGS as RATINGS
from .rollouts import cube_rollout as cube_rollout
from .rollouts import CubeRollout as CubeRollout
from .rollouts import dice_stream as dice_stream
from .rollouts import RolledCandidate as RolledCandidate
from .rollouts import rollout as rollout
